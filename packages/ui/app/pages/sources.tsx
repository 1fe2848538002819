/**
 * `/sources`: every source with its trigger, active switch, last event and webhooks; filter and
 * delete. `/sources?action=create&key=...` (or `&url=...`) shows the deploy form instead.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { lazy, useLocation } from "preact-iso";
import { api, listAll, page, seg } from "../api";
import { useLoad, useNotice, useTitle } from "../hooks";
import { timerSchedule } from "../triggers";
import type { Component, EventSummary, Source, Subscription, Webhook, Workflow } from "../types";
import {
  ConfirmDialog,
  CopyButton,
  DeleteCell,
  ErrorNote,
  ListTable,
  Loading,
  NextRun,
  Notice,
  SearchField,
  Switch,
  Time,
} from "../widgets";

const CreateSource = lazy(() => import("./source-create").then((m) => m.CreateSource));

interface ListData {
  sources: Source[];
  components: Map<string, Component>;
  subscriptions: Subscription[];
  webhooks: Map<string, Webhook>;
  /** Workflows triggered by a source's events. */
  workflows: Workflow[];
}

async function loadList(): Promise<ListData> {
  const [sources, components, subscriptions, webhooks, workflows] = await Promise.all([
    listAll<Source>("/v1/sources"),
    listAll<Component>("/v1/components"),
    listAll<Subscription>("/v1/subscriptions"),
    listAll<Webhook>("/v1/webhooks"),
    // A server without workflows answers 404 route_not_found: no links to show.
    listAll<Workflow>("/v1/workflows").catch(() => [] as Workflow[]),
  ]);
  return {
    sources,
    components: new Map(components.map((c) => [c.id, c])),
    subscriptions,
    webhooks: new Map(webhooks.map((w) => [w.id, w])),
    workflows: workflows.filter((w) => w.trigger.type === "source"),
  };
}

/** The newest event time of each source (one small request each, a few at a time). */
function useLastEvents(sources: Source[] | undefined): Map<string, number | null> {
  const [last, setLast] = useState(new Map<string, number | null>());
  useEffect(() => {
    if (!sources) return;
    let stopped = false;
    const queue = [...sources];
    const worker = async () => {
      for (let s = queue.shift(); s && !stopped; s = queue.shift()) {
        const id = s.id;
        try {
          const { data } = await page<EventSummary>(`/v1/sources/${seg(id)}/event_summaries`, { limit: 1 });
          if (!stopped) setLast((m) => new Map(m).set(id, data[0]?.indexed_at_ms ?? null));
        } catch {
          // A source deleted meanwhile: nothing to show.
        }
      }
    };
    void Promise.all([worker(), worker(), worker(), worker()]);
    return () => {
      stopped = true;
    };
  }, [sources]);
  return last;
}

function matches(source: Source, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return [source.name, source.id, source.name_slug, source.endpoint_url ?? ""].some((f) =>
    f.toLowerCase().includes(q),
  );
}

/** The sources list (or the deploy form of a deploy link). */
export function SourcesPage() {
  const { query } = useLocation();
  if (query.action === "create") return <CreateSource componentKey={query.key} componentUrl={query.url} />;
  return <SourcesList />;
}

function SourcesList() {
  useTitle("Sources");
  const list = useLoad(loadList, []);
  const last = useLastEvents(list.data?.sources);
  const [filter, setFilter] = useState("");
  const [toDelete, setToDelete] = useState<Source | undefined>();
  const [notice, notify] = useNotice();
  const shown = useMemo(
    () => list.data?.sources.filter((s) => matches(s, filter)) ?? [],
    [list.data, filter],
  );

  async function setActive(source: Source, active: boolean) {
    try {
      const updated = await api<Source>("PUT", `/v1/sources/${seg(source.id)}`, { active });
      if (list.data) {
        list.set({
          ...list.data,
          sources: list.data.sources.map((s) => (s.id === updated.id ? updated : s)),
        });
      }
      notify(`${updated.name} is ${updated.active ? "active" : "inactive"}.`);
    } catch (e) {
      notify(`Could not change ${source.name}: ${(e as Error).message}`);
    }
  }

  return (
    <section>
      <div class="page-head">
        <h1>Sources</h1>
        <a class="button primary" href="/sources/new">
          New source
        </a>
      </div>
      <div class="toolbar">
        <SearchField
          id="source-filter"
          label="Filter sources"
          placeholder="Name, id or endpoint"
          value={filter}
          onChange={setFilter}
        />
      </div>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the sources" />
      {list.loading && !list.data ? <Loading what="sources" /> : null}
      {list.data && list.data.sources.length === 0 ? (
        <p class="empty">
          No sources yet. <a href="/sources/new">Deploy one from the registry</a>.
        </p>
      ) : null}
      {list.data && list.data.sources.length > 0 ? (
        <ListTable caption="Sources" columns={["Name", "Trigger", "Active", "Last event", "Linked"]}>
          {shown.map((s) => (
            <SourceRow
              key={s.id}
              source={s}
              data={list.data as ListData}
              last={last.get(s.id)}
              onActive={(v) => setActive(s, v)}
              onDelete={() => setToDelete(s)}
            />
          ))}
        </ListTable>
      ) : null}
      {list.data && list.data.sources.length > 0 && shown.length === 0 ? (
        <p class="empty">No source matches “{filter}”.</p>
      ) : null}
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? "source"}?`}
        confirmLabel="Delete source"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const s = toDelete as Source;
          await api("DELETE", `/v1/sources/${seg(s.id)}`);
          notify(`Deleted ${s.name}.`);
          await list.reload();
        }}
      >
        <p>
          Its events, logs and subscriptions are deleted too, and its endpoint stops answering. This cannot be
          undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function SourceRow({
  source,
  data,
  last,
  onActive,
  onDelete,
}: {
  source: Source;
  data: ListData;
  last: number | null | undefined;
  onActive: (active: boolean) => Promise<void>;
  onDelete: () => void;
}) {
  const component = data.components.get(source.component_id);
  const schedule = timerSchedule(component?.configurable_props, source.configured_props);
  const hooks = data.subscriptions
    .filter((sub) => sub.emitter_id === source.id)
    .map((sub) => ({ sub, webhook: data.webhooks.get(sub.listener_id) }));
  const flows = data.workflows.filter((w) => w.trigger.source_id === source.id);
  return (
    <tr>
      <th scope="row" data-label="Name">
        <a href={`/sources/${source.id}`}>{source.name}</a>
        <div class="muted mono small-text">{source.id}</div>
      </th>
      <td data-label="Trigger">
        {source.endpoint_url ? (
          <span class="endpoint">
            <code>{source.endpoint_url}</code>
            <CopyButton text={source.endpoint_url} label={`Copy the endpoint of ${source.name}`} />
          </span>
        ) : schedule ? (
          <span>
            Timer: {schedule}
            <NextRun at={source.active ? source.next_run_at : null} />
          </span>
        ) : (
          <span class="muted">Run now only</span>
        )}
      </td>
      <td data-label="Active">
        <Switch checked={source.active} label={`Active: ${source.name}`} onChange={onActive} />
      </td>
      <td data-label="Last event">
        {last === undefined ? <span class="muted">…</span> : <Time ms={last} />}
      </td>
      <td data-label="Linked">
        {hooks.length === 0 && flows.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <ul class="plain">
            {hooks.map(({ sub, webhook }) => (
              <li key={sub.id}>
                <span class="muted">Webhook </span>
                <a href={`/webhooks/${sub.listener_id}`}>
                  {webhook?.name ?? webhook?.url ?? sub.listener_id}
                </a>
                {sub.event_name ? <span class="muted"> ({sub.event_name})</span> : null}
              </li>
            ))}
            {flows.map((w) => (
              <li key={w.id}>
                <span class="muted">Workflow </span>
                <a href={`/workflows/${w.id}`}>{w.name}</a>
                {w.trigger.event_name ? <span class="muted"> ({w.trigger.event_name})</span> : null}
              </li>
            ))}
          </ul>
        )}
      </td>
      <DeleteCell name={source.name} onClick={onDelete} />
    </tr>
  );
}
