/**
 * `/workflows/{p_id}`: a workflow's trigger and steps, RUN NOW with an event, its runs (newest
 * first, refreshed every few seconds) and, with `?run=exe_...`, the run view with each step.
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type ApiError, api, apiHas, page, seg } from "../api";
import { asApiError, useLoad, useNotice, usePoll, useTitle } from "../hooks";
import { openStream } from "../sse";
import { describeWorkflowTrigger, runDuration, toMs } from "../triggers";
import type { Execution, Workflow } from "../types";
import { CopyButton, ErrorNote, Loading, NextRun, Notice, Switch, Time } from "../widgets";
import { EventBrowser } from "./source-events";
import { RunView, StatusBadge } from "./workflow-run";

/** A workflow's page. */
export function WorkflowPage() {
  const { params, query } = useRoute();
  const { route } = useLocation();
  const id = params.id as string;
  const loaded = useLoad(() => api<Workflow>("GET", `/v1/workflows/${seg(id)}`), [id]);
  const runs = useLoad(
    async () => (await page<Execution>(`/v1/workflows/${seg(id)}/executions`, { limit: 50 })).data,
    [id],
  );
  usePoll(runs.reload, 3000);
  // Runs started by the trigger appear at once: the workflow's stream announces each status change.
  const [changed, setChanged] = useState({ id: "", n: 0 });
  const { reload } = runs;
  useEffect(
    () =>
      openStream(`/v1/workflows/${seg(id)}/sse`, {
        onMessage(data, event) {
          if (event !== "execution") return;
          void reload();
          try {
            const exeId = (JSON.parse(data) as { execution_id: string }).execution_id;
            setChanged((c) => ({ id: exeId, n: c.n + 1 }));
          } catch {
            // not JSON: the list is reloaded anyway
          }
        },
      }),
    [id, reload],
  );
  const [notice, notify] = useNotice();
  const w = loaded.data;
  useTitle(w?.name ?? "Workflow");
  const open = (exeId: string) => route(`/workflows/${id}?run=${exeId}`);

  if (!w) {
    return (
      <section>
        <p class="crumbs">
          <a href="/workflows">Workflows</a>
        </p>
        <h1>{loaded.error?.code === "not_found" ? "Workflow not found" : "Workflow"}</h1>
        <ErrorNote error={loaded.error} />
        {loaded.loading ? <Loading what="the workflow" /> : null}
      </section>
    );
  }
  return (
    <section>
      <p class="crumbs">
        <a href="/workflows">Workflows</a>
      </p>
      <div class="page-head">
        <div>
          <h1>{w.name}</h1>
          <p class="muted mono small-text">{w.id}</p>
          <a class="button small" href={`/workflows/${seg(w.id)}/edit`}>
            Edit workflow
          </a>
        </div>
        <Switch
          checked={w.active}
          label={`Active: ${w.name}`}
          onChange={async (active) => {
            try {
              loaded.set(await api<Workflow>("PUT", `/v1/workflows/${seg(w.id)}`, { active }));
              notify(active ? "The workflow is active." : "The workflow is inactive.");
            } catch (e) {
              notify(`Could not change it: ${(e as Error).message}`);
            }
          }}
        />
      </div>
      <div class="trigger-line">
        {w.trigger.type === "http" && w.trigger.endpoint_url ? (
          <span class="endpoint">
            HTTP endpoint <code>{w.trigger.endpoint_url}</code>
            <CopyButton text={w.trigger.endpoint_url} label="Copy the endpoint URL" />
          </span>
        ) : w.trigger.type === "source" && w.trigger.source_id ? (
          <span>
            Runs on each event of <a href={`/sources/${w.trigger.source_id}`}>{w.trigger.source_id}</a>
            {w.trigger.event_name ? ` (${w.trigger.event_name})` : ""}
          </span>
        ) : (
          <span>
            {describeWorkflowTrigger(w.trigger)}
            {w.trigger.type === "timer" ? <NextRun at={w.active ? w.next_run_at : null} /> : null}
          </span>
        )}
      </div>
      <p class="small-text">
        Steps: <span class="mono">{w.steps.map((s) => s.name).join(" → ")}</span>
      </p>
      <Notice text={notice} />
      <RunNow
        workflow={w}
        onRun={async (exe) => {
          notify(`Run ${exe.id} ${exe.status}.`);
          await runs.reload();
          open(exe.id);
        }}
      />
      {typeof query.run === "string" && query.run ? (
        <RunView
          key={query.run}
          workflowId={w.id}
          executionId={query.run}
          changes={changed.id === query.run ? changed.n : 0}
          onReplay={async (exe) => {
            await runs.reload();
            open(exe.id);
          }}
        />
      ) : null}
      <section class="card" aria-labelledby="runs-title">
        <h2 id="runs-title">Runs</h2>
        <ErrorNote error={runs.error} label="Could not load the runs" />
        {runs.loading && !runs.data ? <Loading what="runs" /> : null}
        {runs.data && runs.data.length === 0 ? <p class="empty">No runs yet: press RUN NOW.</p> : null}
        {runs.data && runs.data.length > 0 ? (
          <div class="table-wrap">
            <table class="list">
              <caption class="visually-hidden">Runs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.map((e) => (
                  <tr key={e.id} aria-current={e.id === query.run ? "true" : undefined}>
                    <th scope="row" data-label="Run">
                      <a class="mono" href={`/workflows/${w.id}?run=${e.id}`}>
                        {e.id}
                      </a>
                    </th>
                    <td data-label="Status">
                      <StatusBadge status={e.status} />
                    </td>
                    <td data-label="Started">
                      <Time ms={e.started_at_ms ?? (e.started_at ? toMs(e.started_at) : null)} />
                    </td>
                    <td data-label="Duration">
                      {runDuration(e) === undefined ? "—" : `${Math.round(runDuration(e) as number)} ms`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <WorkflowEvents id={w.id} />
    </section>
  );
}

/**
 * What the workflow emitted (`$.send.emit`, `$errors`), live, with the events search: on the
 * server when its `event_summaries` takes a `filter`, else over the loaded events.
 */
function WorkflowEvents({ id }: { id: string }) {
  const [server, setServer] = useState<boolean | undefined>();
  useEffect(() => {
    void apiHas("GET", "/v1/workflows/{id}/event_summaries", "filter").then(setServer);
  }, []);
  return (
    <section class="card" aria-labelledby="workflow-events-title">
      <h2 id="workflow-events-title">Events</h2>
      <p class="muted small-text">What its steps emitted ($.send.emit) and its failed runs ($errors).</p>
      {server === undefined ? (
        <Loading what="events" />
      ) : (
        <EventBrowser base={`/v1/workflows/${seg(id)}`} server={server} what="this workflow" />
      )}
    </section>
  );
}

/** RUN NOW: runs the workflow with an event (JSON) and opens the run. */
function RunNow({ workflow, onRun }: { workflow: Workflow; onRun: (exe: Execution) => Promise<void> }) {
  const [event, setEvent] = useState("{}");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  return (
    <form
      class="card run-now"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const body = event.trim() ? { event: JSON.parse(event) as unknown } : {};
          // A test run where the server has them: it fails at a failing step at once, where a
          // plain manual run would wait hours for the retry policy's next try.
          const test = await apiHas("POST", "/v1/workflows/{id}/test");
          const path = `/v1/workflows/${seg(workflow.id)}/${test ? "test" : "run"}`;
          await onRun(await api<Execution>("POST", path, body));
        } catch (err) {
          setError(
            err instanceof SyntaxError
              ? asApiError(new Error("The event is not valid JSON"))
              : asApiError(err),
          );
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="workflow-event">Event (JSON): steps read it as steps.trigger.event</label>
        <textarea
          id="workflow-event"
          class="mono"
          rows={3}
          value={event}
          onInput={(e) => setEvent(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={error} label="Run failed" />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Running…" : "RUN NOW"}
        </button>
      </div>
    </form>
  );
}
