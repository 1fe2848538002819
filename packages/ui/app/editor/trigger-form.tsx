/**
 * The trigger of a workflow being edited: HTTP (its URL once saved, and whether it answers with
 * `$.respond`), a schedule (an interval or a cron expression in a time zone, with the next runs),
 * a source's events (with the channel), or manual runs only.
 */
import { useEffect, useState } from "preact/hooks";
import { listAll } from "../api";
import { useLoad } from "../hooks";
import type { Source, WorkflowTrigger } from "../types";
import { CopyButton } from "../widgets";

const TYPES: { type: WorkflowTrigger["type"]; label: string }[] = [
  { type: "http", label: "HTTP request" },
  { type: "timer", label: "Schedule" },
  { type: "source", label: "A source's events" },
  { type: "manual", label: "Manual only" },
];

/** The trigger form. */
export function TriggerForm({
  trigger,
  onChange,
  error,
}: {
  trigger: WorkflowTrigger;
  onChange: (t: WorkflowTrigger) => void;
  error?: string | undefined;
}) {
  return (
    <fieldset class="trigger-form">
      <legend>Trigger</legend>
      <div class="choices" role="radiogroup" aria-label="Trigger type">
        {TYPES.map((t) => (
          <label key={t.type} class="choice">
            <input
              type="radio"
              name="trigger-type"
              value={t.type}
              checked={trigger.type === t.type}
              onChange={() =>
                onChange(t.type === "timer" ? { type: "timer", intervalSeconds: 900 } : { type: t.type })
              }
            />{" "}
            {t.label}
          </label>
        ))}
      </div>
      {trigger.type === "http" ? <HttpTrigger trigger={trigger} onChange={onChange} /> : null}
      {trigger.type === "timer" ? <ScheduleTrigger trigger={trigger} onChange={onChange} /> : null}
      {trigger.type === "source" ? <SourceTrigger trigger={trigger} onChange={onChange} /> : null}
      {trigger.type === "manual" ? (
        <p class="hint">Runs only when started by hand: Test here, RUN NOW, or the API.</p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function HttpTrigger({
  trigger,
  onChange,
}: {
  trigger: WorkflowTrigger;
  onChange: (t: WorkflowTrigger) => void;
}) {
  return (
    <>
      {trigger.endpoint_url ? (
        <p class="endpoint">
          URL: <code>{trigger.endpoint_url}</code>{" "}
          <CopyButton text={trigger.endpoint_url} label="Copy the trigger URL" />
        </p>
      ) : (
        <p class="hint">The URL is created when the workflow is first saved (Test or Deploy).</p>
      )}
      <label class="choice">
        <input
          type="checkbox"
          checked={trigger.custom_response === true}
          onChange={(e) => onChange({ ...trigger, custom_response: e.currentTarget.checked })}
        />{" "}
        Answer the request from a step with <code>$.respond()</code> (custom response)
      </label>
    </>
  );
}

function ScheduleTrigger({
  trigger,
  onChange,
}: {
  trigger: WorkflowTrigger;
  onChange: (t: WorkflowTrigger) => void;
}) {
  const cron = typeof trigger.cron === "string";
  const [runs, setRuns] = useState<{ times: number[] } | { problem: string } | undefined>();
  useEffect(() => {
    let live = true;
    const config = cron
      ? { cron: trigger.cron as string, ...(trigger.timezone ? { timezone: trigger.timezone } : {}) }
      : { intervalSeconds: trigger.intervalSeconds ?? 0 };
    void import("./next-runs").then((m) => live && setRuns(m.nextRuns(config)));
    return () => {
      live = false;
    };
  }, [trigger.cron, trigger.timezone, trigger.intervalSeconds, cron]);
  return (
    <>
      <div class="choices" role="radiogroup" aria-label="Schedule kind">
        <label class="choice">
          <input
            type="radio"
            name="schedule-kind"
            checked={!cron}
            onChange={() => onChange({ type: "timer", intervalSeconds: 900 })}
          />{" "}
          Every N seconds
        </label>
        <label class="choice">
          <input
            type="radio"
            name="schedule-kind"
            checked={cron}
            onChange={() => onChange({ type: "timer", cron: "0 * * * *", timezone: "UTC" })}
          />{" "}
          Cron expression
        </label>
      </div>
      {cron ? (
        <div class="row wrap">
          <div class="field">
            <label for="trigger-cron">Cron expression</label>
            <input
              id="trigger-cron"
              class="mono"
              value={trigger.cron}
              onInput={(e) => onChange({ ...trigger, cron: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="trigger-tz">Time zone</label>
            <input
              id="trigger-tz"
              list="trigger-tz-list"
              value={trigger.timezone ?? ""}
              placeholder="UTC"
              onInput={(e) => onChange({ ...trigger, timezone: e.currentTarget.value || undefined })}
            />
            <datalist id="trigger-tz-list">
              {(Intl as unknown as { supportedValuesOf?: (k: string) => string[] })
                .supportedValuesOf?.("timeZone")
                .map((z) => (
                  <option key={z} value={z} />
                ))}
            </datalist>
          </div>
        </div>
      ) : (
        <div class="field">
          <label for="trigger-interval">Interval (seconds)</label>
          <input
            id="trigger-interval"
            type="number"
            min={1}
            value={trigger.intervalSeconds ?? ""}
            onInput={(e) => onChange({ type: "timer", intervalSeconds: Number(e.currentTarget.value) })}
          />
        </div>
      )}
      <div class="next-runs" aria-live="polite">
        {runs && "problem" in runs ? <p class="error">{runs.problem}</p> : null}
        {runs && "times" in runs ? (
          <p class="hint">
            Next runs (once deployed; an interval counts from the deploy):{" "}
            {runs.times.map((t) => new Date(t).toLocaleString()).join(" · ")}
          </p>
        ) : null}
      </div>
    </>
  );
}

function SourceTrigger({
  trigger,
  onChange,
}: {
  trigger: WorkflowTrigger;
  onChange: (t: WorkflowTrigger) => void;
}) {
  const sources = useLoad(() => listAll<Source>("/v1/sources"), []);
  return (
    <div class="row wrap">
      <div class="field">
        <label for="trigger-source">Source</label>
        <select
          id="trigger-source"
          value={trigger.source_id ?? ""}
          onChange={(e) => onChange({ ...trigger, source_id: e.currentTarget.value })}
        >
          <option value="">Choose a source…</option>
          {(sources.data ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} ({s.id})
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="trigger-channel">Channel (optional)</label>
        <input
          id="trigger-channel"
          value={trigger.event_name ?? ""}
          placeholder="default channel"
          onInput={(e) => onChange({ ...trigger, event_name: e.currentTarget.value || undefined })}
        />
      </div>
    </div>
  );
}
