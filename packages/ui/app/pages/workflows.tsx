/**
 * `/workflows` and `/workflows/{p_id}`: reserved for the workflow pages (runs and steps). The
 * server's API is asked whether it has workflows; until it does, the page says so.
 */
import { useRoute } from "preact-iso";
import { apiBase, page } from "../api";
import { useLoad, useTitle } from "../hooks";
import { ErrorNote, Loading } from "../widgets";

interface WorkflowItem {
  id: string;
  name: string;
  active?: boolean;
}

/** The workflows placeholder: real data only, never invented. */
export function WorkflowsPage() {
  useTitle("Workflows");
  const { params } = useRoute();
  // The OpenAPI document (200 either way) says whether the server has the workflows routes.
  const probe = useLoad(async () => {
    const doc = (await fetch(`${apiBase()}/v1/openapi.json`).then((r) => r.json())) as { paths?: object };
    if (!doc.paths || !("/v1/workflows" in doc.paths)) return { available: false, items: [] };
    return { available: true, items: (await page<WorkflowItem>("/v1/workflows", { limit: 100 })).data };
  }, []);
  return (
    <section>
      <h1>Workflows</h1>
      <ErrorNote error={probe.error} />
      {probe.loading && !probe.data ? <Loading what="workflows" /> : null}
      {probe.data && !probe.data.available ? (
        <p class="empty">
          This server has no workflows API yet (its OpenAPI document has no <code>/v1/workflows</code>).
          Sources, webhooks and deliveries are available.
        </p>
      ) : null}
      {probe.data?.available ? (
        <>
          <p class="muted">
            {params.id ? `Workflow ${params.id}: ` : ""}the run view with each step comes with the workflow
            pages.
          </p>
          <ul class="plain">
            {probe.data.items.map((w) => (
              <li key={w.id}>
                {w.name} <span class="muted mono small-text">{w.id}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
