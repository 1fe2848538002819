/**
 * One step of the workflow being edited, as a card: its name (renamed in place), move up and down
 * (buttons, so the keyboard can reorder; the card is also draggable), delete; a code step's code
 * (CodeMirror, loaded on first use, completing `steps.`, `$.` and `this.`) or an action's prop form
 * with a variable picker per prop; test up to this step or run it alone; its last result inline.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { StepCompletions } from "../editor";
import { Step as StepResult } from "../pages/workflow-run";
import { PropForm, type WrappedField } from "../props/prop-form";
import { labelOf } from "../props/values";
import type { Execution, Prop } from "../types";
import { exprProblem } from "./expr";
import type { DraftStep } from "./model";
import { VariablePicker } from "./variables";

type Editor = typeof import("../editor").CodeEditor;
let editorModule: Promise<Editor> | undefined;

/** The code editor, loaded once on first use (it is most of the app's weight). */
function useCodeEditor(): Editor | undefined {
  const [editor, setEditor] = useState<Editor | undefined>();
  useEffect(() => {
    let live = true;
    editorModule ??= import("../editor").then((m) => m.CodeEditor);
    void editorModule.then((e) => live && setEditor(() => e));
    return () => {
      live = false;
    };
  }, []);
  return editor;
}

/** `this.` of a code step: the keys of its `props: { ... }`, read from the code. */
export function codeProps(code: string): string[] {
  const at = code.search(/\bprops\s*:\s*\{/);
  if (at < 0) return [];
  const start = code.indexOf("{", at) + 1;
  const names: string[] = [];
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === "{" || c === "[" || c === "(") depth++;
    else if (c === "}" || c === "]" || c === ")") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0) {
      const m = /^\s*([A-Za-z_$][\w$]*)\s*:/.exec(code.slice(i));
      if (m && /[{,\s]/.test(code[i - 1] ?? "{")) {
        names.push(m[1] as string);
        i += (m[0] as string).length - 1;
      }
    }
  }
  return names;
}

/** What the card needs from the page. */
export interface StepCardProps {
  step: DraftStep;
  index: number;
  count: number;
  /** The steps before this one (what its expressions may name). */
  earlier: DraftStep[];
  run: Execution | undefined;
  env: string[];
  nameError: string | undefined;
  /** The server's messages by prop name, from the last save or test. */
  errors: Record<string, string>;
  busy: boolean;
  onChange: (step: DraftStep) => void;
  onMove: (to: number) => void;
  onDelete: () => void;
  onTest: (mode: "upto" | "only") => void;
  onDragStart: () => void;
  onDrop: () => void;
}

/** A step card. */
export function StepCard(p: StepCardProps) {
  const { step, index } = p;
  const CodeEditor = useCodeEditor();
  const id = `step${step.uid}`;
  const record = p.run?.steps.find((s) => s.name === step.name);
  const earlierNames = p.earlier.map((s) => s.name);
  // Running this step alone needs the last run's results of every earlier step.
  const canRunAlone =
    p.run !== undefined &&
    p.earlier.every((e) => p.run?.steps.find((s) => s.name === e.name)?.status === "succeeded");
  const completions: StepCompletions = {
    steps: Object.fromEntries(
      earlierNames.map((n) => {
        const r = p.run?.steps.find((s) => s.name === n);
        return [n, ["$return_value", ...Object.keys(r?.exports ?? {})]];
      }),
    ),
    props:
      step.kind === "code"
        ? codeProps(step.code ?? "")
        : (step.component?.configurable_props ?? []).map((x) => x.name),
  };
  const wrapField = (prop: Prop, field: WrappedField, input: ComponentChildren) => (
    <ExpressionField
      prop={prop}
      field={field}
      input={input}
      problem={
        typeof field.value === "string"
          ? exprProblem(field.value, { earlier: earlierNames, env: p.env })
          : undefined
      }
      picker={
        <VariablePicker
          id={field.id}
          propLabel={labelOf(prop)}
          scope={{ run: p.run, earlier: earlierNames, env: p.env }}
          onInsert={(expr) => {
            const v = field.value;
            const textual = prop.type === "string" && !prop.options;
            field.onChange(textual && typeof v === "string" ? `${v}${expr}` : expr);
          }}
        />
      }
    />
  );
  return (
    <li
      class="card step-card"
      aria-labelledby={`${id}-title`}
      draggable
      onDragStart={(e) => {
        e.dataTransfer?.setData("text/plain", step.uid);
        p.onDragStart();
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        p.onDrop();
      }}
    >
      <div class="step-head">
        <h3 id={`${id}-title`}>
          <span class="step-number" aria-hidden="true">
            {index + 1}
          </span>
          <span class="visually-hidden">Step {index + 1}: </span>
          <span class="mono">{step.name}</span>{" "}
          <span class="muted small-text">
            {step.kind === "code" ? "code" : (step.componentKey ?? step.componentId)}
          </span>
        </h3>
        <div class="row">
          <button
            type="button"
            class="small"
            disabled={index === 0}
            aria-label={`Move ${step.name} up`}
            onClick={() => p.onMove(index - 1)}
          >
            ↑
          </button>
          <button
            type="button"
            class="small"
            disabled={index === p.count - 1}
            aria-label={`Move ${step.name} down`}
            onClick={() => p.onMove(index + 1)}
          >
            ↓
          </button>
          <button
            type="button"
            class="small danger-text"
            aria-label={`Delete ${step.name}`}
            onClick={p.onDelete}
          >
            Delete
          </button>
        </div>
      </div>
      <div class="field">
        <label for={`${id}-name`}>Step name</label>
        <input
          id={`${id}-name`}
          class="mono"
          value={step.name}
          aria-invalid={p.nameError ? true : undefined}
          aria-describedby={p.nameError ? `${id}-name-err` : undefined}
          onInput={(e) => p.onChange({ ...step, name: e.currentTarget.value })}
        />
        {p.nameError ? (
          <p id={`${id}-name-err`} class="error field-error" role="alert">
            {p.nameError}
          </p>
        ) : null}
      </div>
      {step.kind === "code" ? (
        CodeEditor ? (
          <CodeEditor
            value={step.code ?? ""}
            label={`Code of step ${step.name}`}
            completions={completions}
            controlled={false}
            onChange={(code) => p.onChange({ ...step, code })}
          />
        ) : (
          <p class="muted">Loading the code editor…</p>
        )
      ) : step.component ? (
        <PropForm
          idPrefix={`${id}-prop`}
          // A key resolves for this workspace (another workspace's public sc_ id would not).
          componentRef={step.componentKey ?? step.component.id}
          props={step.component.configurable_props}
          values={step.configured}
          onValues={(configured) => p.onChange({ ...step, configured })}
          onProps={(props) =>
            p.onChange({
              ...step,
              component: {
                ...(step.component as NonNullable<DraftStep["component"]>),
                configurable_props: props,
              },
            })
          }
          errors={p.errors}
          wrapField={wrapField}
        />
      ) : (
        <p class="muted">Loading the action's props…</p>
      )}
      {p.errors[""] ? (
        <p class="error" role="alert">
          {p.errors[""]}
        </p>
      ) : null}
      <div class="row wrap">
        <button type="button" class="small" disabled={p.busy} onClick={() => p.onTest("upto")}>
          Test up to {step.name}
        </button>
        <button
          type="button"
          class="small"
          disabled={p.busy || !canRunAlone}
          title={canRunAlone ? undefined : "Test the steps before it first"}
          onClick={() => p.onTest("only")}
        >
          Run {step.name} only
        </button>
      </div>
      {record && record.status !== "pending" ? (
        <div class="step-result" aria-live="polite">
          <StepResult step={record} index={index} idPrefix={`${id}-result`} />
        </div>
      ) : null}
    </li>
  );
}

/**
 * A prop of a step: its usual input, or a text field while its value is a `{{ }}` expression
 * (checked as typed, the problem under the field), and the variable picker.
 */
function ExpressionField({
  prop,
  field,
  input,
  problem,
  picker,
}: {
  prop: Prop;
  field: WrappedField;
  input: ComponentChildren;
  problem: string | undefined;
  picker: ComponentChildren;
}) {
  const expression = typeof field.value === "string" && field.value.includes("{{");
  const error = problem ?? field.error;
  if (!expression || prop.type === "string")
    return (
      <div class="expr-field">
        {input}
        {problem ? (
          <p id={`${field.id}-expr-err`} class="error field-error" role="alert">
            {problem}
          </p>
        ) : null}
        {picker}
      </div>
    );
  return (
    <div class="expr-field field">
      <label for={field.id}>
        {labelOf(prop)} <span class="muted">(expression)</span>
      </label>
      <input
        id={field.id}
        class="mono"
        value={field.value as string}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${field.id}-err` : undefined}
        onInput={(e) => field.onChange(e.currentTarget.value === "" ? undefined : e.currentTarget.value)}
      />
      {error ? (
        <p id={`${field.id}-err`} class="error field-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="button" class="link-button small" onClick={() => field.onChange(undefined)}>
        Use a fixed value
      </button>
      {picker}
    </div>
  );
}
