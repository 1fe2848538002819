/**
 * `/sources/{dc_id}`: a source's header (trigger, active, RUN NOW, delete) and its tabs: Events,
 * Logs, Configuration and Subscriptions (`?tab=`).
 */
import { useState } from "preact/hooks";
import { lazy, useLocation, useRoute } from "preact-iso";
import { type ApiError, api, seg } from "../api";
import { asApiError, useLoad, useNotice, useTitle } from "../hooks";
import { Tabs } from "../tabs";
import { timerSchedule } from "../triggers";
import type { Component, RunResult, Source } from "../types";
import { ConfirmDialog, CopyButton, ErrorNote, Loading, NextRun, Notice, Switch } from "../widgets";
import type { SourceContext } from "./source-context";
import { EventsTab } from "./source-events";
import { LogsTab } from "./source-logs";
import { SubscriptionsTab } from "./source-subscriptions";

// The code editor is the largest part of the app: it loads with the Configuration tab only.
const ConfigurationTab = lazy(() => import("./source-config").then((m) => m.ConfigurationTab));

const TABS = [
  { id: "events", label: "Events" },
  { id: "logs", label: "Logs" },
  { id: "configuration", label: "Configuration" },
  { id: "subscriptions", label: "Subscriptions" },
];

async function loadSource(id: string) {
  const source = await api<Source>("GET", `/v1/sources/${seg(id)}`);
  const component = await api<Component>("GET", `/v1/components/${seg(source.component_id)}`).catch(
    () => undefined,
  );
  return { source, component };
}

/** A source's page. */
export function SourcePage() {
  const { params, query } = useRoute();
  const { route } = useLocation();
  const id = params.id as string;
  const loaded = useLoad(() => loadSource(id), [id]);
  const [notice, notify] = useNotice();
  const [confirm, setConfirm] = useState(false);
  const tab = TABS.some((t) => t.id === query.tab) ? (query.tab as string) : "events";
  const source = loaded.data?.source;
  useTitle(source?.name ?? "Source");

  if (!loaded.data) {
    return (
      <section>
        <p class="crumbs">
          <a href="/sources">Sources</a>
        </p>
        <h1>{loaded.error?.code === "not_found" ? "Source not found" : "Source"}</h1>
        <ErrorNote error={loaded.error} />
        {loaded.loading ? <Loading what="the source" /> : null}
      </section>
    );
  }
  const ctx: SourceContext = {
    source: loaded.data.source,
    component: loaded.data.component,
    onSource: (s) => {
      const data = loaded.data as { source: Source; component: Component | undefined };
      if (s.component_id !== data.source.component_id) void loaded.reload();
      else loaded.set({ ...data, source: s });
    },
  };
  const s = ctx.source;
  const schedule = timerSchedule(ctx.component?.configurable_props, s.configured_props);
  return (
    <section>
      <p class="crumbs">
        <a href="/sources">Sources</a>
      </p>
      <div class="page-head">
        <div>
          <h1>{s.name}</h1>
          <p class="muted mono small-text">
            {s.id}
            {ctx.component ? ` · ${ctx.component.key ?? ctx.component.name} v${ctx.component.version}` : ""}
          </p>
        </div>
        <div class="row wrap">
          <Switch
            checked={s.active}
            label={`Active: ${s.name}`}
            onChange={async (active) => {
              try {
                ctx.onSource(await api<Source>("PUT", `/v1/sources/${seg(s.id)}`, { active }));
                notify(active ? "The source is active." : "The source is inactive.");
              } catch (e) {
                notify(`Could not change it: ${(e as Error).message}`);
              }
            }}
          />
          <RunNow source={s} onDone={notify} />
          <button type="button" class="danger-text" onClick={() => setConfirm(true)}>
            Delete
          </button>
        </div>
      </div>
      <div class="trigger-line">
        {s.endpoint_url ? (
          <span class="endpoint">
            HTTP endpoint <code>{s.endpoint_url}</code>
            <CopyButton text={s.endpoint_url} label="Copy the endpoint URL" />
          </span>
        ) : schedule ? (
          <span>
            Timer: {schedule}
            <NextRun at={s.active ? s.next_run_at : null} />
          </span>
        ) : null}
      </div>
      <Notice text={notice} />
      <Tabs
        tabs={TABS}
        selected={tab}
        label="Source"
        onSelect={(t) => route(`/sources/${s.id}${t === "events" ? "" : `?tab=${t}`}`, true)}
      >
        {tab === "events" ? <EventsTab key={s.id} ctx={ctx} /> : null}
        {tab === "logs" ? <LogsTab key={s.id} ctx={ctx} /> : null}
        {tab === "configuration" ? <ConfigurationTab ctx={ctx} notify={notify} /> : null}
        {tab === "subscriptions" ? <SubscriptionsTab ctx={ctx} /> : null}
      </Tabs>
      <ConfirmDialog
        open={confirm}
        title={`Delete ${s.name}?`}
        confirmLabel="Delete source"
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          await api("DELETE", `/v1/sources/${seg(s.id)}`);
          route("/sources");
        }}
      >
        <p>Its events, logs and subscriptions are deleted too. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

/** RUN NOW: runs the source once (optionally with a test event) and says what happened. */
function RunNow({ source, onDone }: { source: Source; onDone: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [event, setEvent] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      let body: unknown;
      if (event.trim()) body = { event: JSON.parse(event) as unknown };
      const result = await api<RunResult>("POST", `/v1/sources/${seg(source.id)}/run`, body);
      const n = result.emitted.length;
      onDone(
        result.error
          ? `The run failed after ${Math.round(result.duration_ms)} ms: ${result.error.message ?? "error"} (see Logs).`
          : `Ran in ${Math.round(result.duration_ms)} ms and emitted ${n} event${n === 1 ? "" : "s"}.`,
      );
    } catch (e) {
      setError(
        e instanceof SyntaxError ? asApiError(new Error("The test event is not valid JSON")) : asApiError(e),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="run-now">
      <div class="row">
        <button type="button" class="primary" disabled={busy} onClick={run}>
          {busy ? "Running…" : "RUN NOW"}
        </button>
        <button
          type="button"
          class="small"
          aria-expanded={open}
          aria-controls="run-event"
          onClick={() => setOpen(!open)}
        >
          With event…
        </button>
      </div>
      {open ? (
        <div class="field" id="run-event">
          <label for="run-event-json">Test event (JSON, optional)</label>
          <textarea
            id="run-event-json"
            class="mono"
            rows={3}
            value={event}
            onInput={(e) => setEvent(e.currentTarget.value)}
          />
        </div>
      ) : null}
      <ErrorNote error={error} label="Run failed" />
    </div>
  );
}
