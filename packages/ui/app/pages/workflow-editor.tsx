/**
 * The workflow editor, `/workflows/new` and `/workflows/{p_id}/edit`: a name, the trigger, the
 * steps as cards (code steps and registry actions, renamed, reordered, deleted), run settings;
 * tests as you build (the whole workflow, up to a step, or one step with the last test's earlier
 * results: `POST /v1/workflows/{id}/test` with the unsaved draft), each step's result inline;
 * Save, Deploy (save and activate), and the workflow's YAML. A new workflow is saved inactive at
 * its first test, so that its HTTP trigger has a URL and its tests have a workflow to belong to.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type ApiError, api, listAll, page, seg } from "../api";
import {
  type Draft,
  type DraftStep,
  emptyDraft,
  freeName,
  fromWorkflow,
  NEW_CODE,
  nameProblem,
  newUid,
  toDefinition,
} from "../editor/model";
import { SettingsForm } from "../editor/settings-form";
import { StepCard } from "../editor/step-card";
import { eventProblem, sampleEvent, TestPanel } from "../editor/test-panel";
import { TriggerForm } from "../editor/trigger-form";
import { YamlPanel } from "../editor/yaml-panel";
import { asApiError, useNotice, useTitle } from "../hooks";
import { RegistryBrowser, type RegistryComponent } from "../registry-browser";
import type { Component, Execution, Workflow } from "../types";
import { ErrorNote, Loading, Notice } from "../widgets";
import { StatusBadge } from "./workflow-run";

/** The server's problems (`details.problems`) placed: by step and prop, the trigger, the rest. */
interface Placed {
  steps: Record<number, Record<string, string>>;
  trigger?: string;
  settings?: string;
  other?: ApiError;
}

function place(error: unknown): Placed {
  const e = asApiError(error);
  const problems = (e.details?.problems ?? []) as { path?: string; message?: string }[];
  const out: Placed = { steps: {} };
  let placed = false;
  for (const p of problems) {
    const path = p.path ?? "";
    const message = p.message ?? e.message;
    const step = /^steps\[(\d+)\](?:\.configured_props\.([^.[]+))?/.exec(path);
    if (step) {
      const i = Number(step[1]);
      const prop = step[2] ?? "";
      out.steps[i] = {
        ...out.steps[i],
        [prop]: out.steps[i]?.[prop] ? `${out.steps[i]?.[prop]}; ${message}` : message,
      };
      placed = true;
    } else if (path.startsWith("trigger")) {
      out.trigger = `${path}: ${message}`;
      placed = true;
    } else if (/^(retry|concurrency|throttle|queue_size)/.test(path)) {
      out.settings = `${path}: ${message}`;
      placed = true;
    }
  }
  if (!placed) out.other = e;
  return out;
}

/** Loads an action's description (its props) by key or id. */
async function loadComponent(step: DraftStep): Promise<Component> {
  return api<Component>("GET", `/v1/components/${seg(step.componentKey ?? step.componentId ?? "")}`);
}

/** The editor page. */
export function WorkflowEditorPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const [id, setId] = useState<string | undefined>(params.id);
  const [draft, setDraft] = useState<Draft | undefined>(params.id ? undefined : emptyDraft());
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const [run, setRun] = useState<Execution | undefined>();
  const [env, setEnv] = useState<string[]>([]);
  const [event, setEvent] = useState(() => sampleEvent({ type: "http" }));
  const [autoRetry, setAutoRetry] = useState(false);
  const [busy, setBusy] = useState(false);
  const [placed, setPlaced] = useState<Placed>({ steps: {} });
  const [picking, setPicking] = useState(false);
  const [version, setVersion] = useState(0);
  const [notice, notify] = useNotice();
  const dragging = useRef<string | undefined>(undefined);
  useTitle(id ? `Edit ${draft?.name || id}` : "New workflow");

  // An existing workflow: its definition, its actions' props, its last run (the picker's values).
  useEffect(() => {
    if (!params.id) return;
    void (async () => {
      try {
        const wf = await api<Workflow & Record<string, unknown>>(
          "GET",
          `/v1/workflows/${seg(params.id as string)}`,
        );
        const d = fromWorkflow(wf);
        d.trigger = wf.trigger; // with its endpoint_url
        await Promise.all(
          d.steps.map(async (s) => {
            if (s.kind === "action") s.component = await loadComponent(s).catch(() => undefined);
          }),
        );
        setDraft(d);
        if (wf.trigger.type !== "http") setEvent("{}");
        const last = await page<Execution>(`/v1/workflows/${seg(params.id as string)}/executions`, {
          limit: 1,
        });
        setRun(last.data[0]);
      } catch (e) {
        setLoadError(asApiError(e));
      }
    })();
  }, [params.id]);
  useEffect(() => {
    void listAll<{ name: string }>("/v1/env").then(
      (vars) => setEnv(vars.map((v) => v.name)),
      () => undefined,
    );
  }, []);

  if (loadError) return <ErrorNote error={loadError} label="Could not load the workflow" />;
  if (!draft) return <Loading what="the workflow" />;

  // Functional updates: edits that come quickly (typing in the code editor) never undo each other.
  const update = (patch: Partial<Draft>) => setDraft((d) => (d ? { ...d, ...patch } : d));
  const setStep = (uid: string, step: DraftStep) =>
    setDraft((d) => (d ? { ...d, steps: d.steps.map((s) => (s.uid === uid ? step : s)) } : d));
  const move = (from: number, to: number) => {
    if (to < 0 || to >= draft.steps.length || from === to) return;
    const steps = [...draft.steps];
    const [moved] = steps.splice(from, 1);
    steps.splice(to, 0, moved as DraftStep);
    update({ steps });
    notify(`Moved ${moved?.name} to position ${to + 1}.`);
  };
  const nameErrors = draft.steps.map((s) => nameProblem(draft.steps, s));
  const blocked = draft.name.trim() === "" || nameErrors.some(Boolean);

  /** Saves (creating the workflow, inactive, when new); resolves with its id. */
  async function save(active?: boolean): Promise<string> {
    const body = { ...toDefinition(draft as Draft), ...(active !== undefined ? { active } : {}) };
    const saved = id
      ? await api<Workflow>("PUT", `/v1/workflows/${seg(id)}`, body)
      : await api<Workflow>("POST", "/v1/workflows", { ...body, active: active ?? false });
    if (!id) {
      setId(saved.id);
      // The page stays as it is; the address becomes the workflow's.
      history.replaceState(null, "", `/workflows/${saved.id}/edit`);
    }
    setDraft((d) => (d ? { ...d, trigger: { ...d.trigger, ...saved.trigger } } : d));
    return saved.id;
  }

  async function guarded(what: () => Promise<void>) {
    setBusy(true);
    setPlaced({ steps: {} });
    try {
      await what();
    } catch (e) {
      setPlaced(place(e));
    } finally {
      setBusy(false);
    }
  }

  async function test(options: { stop_after?: string; from_step?: string; from_execution?: string } = {}) {
    const problem = eventProblem(event);
    if (problem) return;
    await guarded(async () => {
      const wfId = id ?? (await save());
      const exe = await api<Execution>("POST", `/v1/workflows/${seg(wfId)}/test`, {
        event: JSON.parse(event),
        workflow: toDefinition(draft as Draft),
        ...options,
        ...(autoRetry ? { auto_retry: true } : {}),
      });
      setRun(exe);
      setVersion((v) => v + 1);
      const failed = exe.steps.find((s) => s.status === "failed");
      notify(
        `Test run ${exe.id}: ${exe.status}${failed ? ` at ${failed.name}: ${failed.error?.message ?? ""}` : ""}.`,
      );
    });
  }

  const addAction = async (c: RegistryComponent, version: string) => {
    const step: DraftStep = {
      uid: newUid(),
      name: freeName(draft.steps, (c.key ?? c.name).replace(/-/g, "_")),
      kind: "action",
      componentKey: version ? `${c.key}@${version}` : (c.key ?? c.id),
      component: c,
      configured: {},
    };
    update({ steps: [...draft.steps, step] });
    setPicking(false);
    notify(`Added ${c.name} as ${step.name}.`);
  };

  return (
    <section class="workflow-editor">
      <p class="crumbs">
        <a href="/workflows">Workflows</a>
        {id ? (
          <>
            {" "}
            / <a href={`/workflows/${seg(id)}`}>{draft.name || id}</a>
          </>
        ) : null}
      </p>
      <h1>{id ? `Edit ${draft.name || id}` : "New workflow"}</h1>
      <Notice text={notice} />
      <form
        class="stack"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void guarded(async () => {
            const wfId = await save(true);
            route(`/workflows/${seg(wfId)}`);
          });
        }}
      >
        <div class="field">
          <label for="workflow-name">Workflow name</label>
          <input
            id="workflow-name"
            value={draft.name}
            onInput={(e) => update({ name: e.currentTarget.value })}
          />
        </div>
        <TriggerForm
          trigger={draft.trigger}
          onChange={(trigger) => {
            if (trigger.type !== draft.trigger.type) setEvent(sampleEvent(trigger));
            update({
              trigger: {
                ...trigger,
                ...(trigger.type === "http" && draft.trigger.endpoint_url
                  ? { endpoint_url: draft.trigger.endpoint_url }
                  : {}),
              },
            });
          }}
          error={placed.trigger}
        />
        <h2>Steps</h2>
        {draft.steps.length === 0 ? <p class="empty">No steps yet: add code or an action.</p> : null}
        <ol class="step-list">
          {draft.steps.map((s, i) => (
            <StepCard
              key={s.uid}
              step={s}
              index={i}
              count={draft.steps.length}
              earlier={draft.steps.slice(0, i)}
              run={run}
              env={env}
              nameError={nameErrors[i]}
              errors={placed.steps[i] ?? {}}
              busy={busy}
              onChange={(step) => setStep(s.uid, step)}
              onMove={(to) => move(i, to)}
              onDelete={() => {
                update({ steps: draft.steps.filter((x) => x !== s) });
                notify(`Deleted ${s.name}.`);
              }}
              onTest={(mode) =>
                void test(
                  mode === "upto"
                    ? { stop_after: s.name }
                    : { stop_after: s.name, from_step: s.name, from_execution: run?.id as string },
                )
              }
              onDragStart={() => {
                dragging.current = s.uid;
              }}
              onDrop={() => {
                const from = draft.steps.findIndex((x) => x.uid === dragging.current);
                dragging.current = undefined;
                if (from >= 0) move(from, i);
              }}
            />
          ))}
        </ol>
        <div class="row wrap">
          <button
            type="button"
            onClick={() => {
              const name = freeName(draft.steps, "code");
              update({
                steps: [
                  ...draft.steps,
                  { uid: newUid(), name, kind: "code", code: NEW_CODE, configured: {} },
                ],
              });
              notify(`Added a code step, ${name}.`);
            }}
          >
            Add a code step
          </button>
          <button type="button" aria-expanded={picking} onClick={() => setPicking(!picking)}>
            Add an action
          </button>
        </div>
        {picking ? (
          <section class="panel action-picker" aria-labelledby="action-picker-title">
            <h2 id="action-picker-title">Add an action from the registry</h2>
            <RegistryBrowser
              type="action"
              idPrefix="actions"
              action={(c, version) => (
                <button type="button" aria-label={`Add ${c.name}`} onClick={() => void addAction(c, version)}>
                  Add
                </button>
              )}
            />
          </section>
        ) : null}
        <SettingsForm settings={draft} onChange={(s) => update(s)} error={placed.settings} />
        <TestPanel
          workflowId={id}
          trigger={draft.trigger}
          event={event}
          onEvent={setEvent}
          autoRetry={autoRetry}
          onAutoRetry={setAutoRetry}
          version={version}
        />
        {run ? (
          <p role="status" class="test-status">
            Last test: <span class="mono">{run.id}</span> <StatusBadge status={run.status} />
            {run.error?.message ? ` ${run.error.message}` : ""}
          </p>
        ) : null}
        <ErrorNote error={placed.other} label="Not saved" />
        <div class="row wrap">
          <button
            type="button"
            disabled={busy || blocked || draft.steps.length === 0}
            onClick={() => void test()}
          >
            {busy ? "Working…" : "Test workflow"}
          </button>
          <button
            type="button"
            disabled={busy || blocked}
            onClick={() =>
              void guarded(async () => {
                await save();
                notify("Saved.");
              })
            }
          >
            Save
          </button>
          <button type="submit" class="primary" disabled={busy || blocked}>
            Deploy
          </button>
        </div>
      </form>
      <YamlPanel
        draft={draft}
        onImport={(d) =>
          Promise.all(
            d.steps.map(async (s) => {
              if (s.kind === "action") s.component = await loadComponent(s).catch(() => undefined);
            }),
          ).then(() => {
            setDraft({
              ...d,
              trigger: {
                ...d.trigger,
                ...(draft.trigger.endpoint_url && d.trigger.type === "http"
                  ? { endpoint_url: draft.trigger.endpoint_url }
                  : {}),
              },
            });
            setEvent(sampleEvent(d.trigger));
          })
        }
      />
    </section>
  );
}
