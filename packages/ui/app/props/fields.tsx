/**
 * Inputs for each prop type: text, secret, integer, boolean, object and any (JSON), static options,
 * arrays of each (rows or checkboxes), and timers. Every input is labelled by the prop's label or
 * name, described by its description, and marked invalid with the error next to it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Markdown } from "../markdown";
import { describeInterval } from "../triggers";
import type { Prop } from "../types";
import { labelOf, type Option, same, toOptions } from "./values";

/** What every field gets. */
export interface FieldProps {
  prop: Prop;
  id: string;
  value: unknown;
  onChange: (value: unknown) => void;
  error?: string | undefined;
  /** For a secret prop of a deployed source: a value is saved (never shown). */
  secretSaved?: boolean;
}

/** `aria-describedby` of a field: its description and its error. */
export function describedBy(id: string, prop: Prop, error?: string): string | undefined {
  const ids = [prop.description ? `${id}-desc` : "", error ? `${id}-err` : ""].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

/** The description and error lines under a field. */
export function FieldNotes({
  id,
  prop,
  error,
  extra,
}: {
  id: string;
  prop: Prop;
  error?: string | undefined;
  extra?: ComponentChildren;
}) {
  return (
    <>
      {prop.description ? (
        <div id={`${id}-desc`} class="hint markdown">
          <Markdown text={prop.description} />
        </div>
      ) : null}
      {extra}
      {error ? (
        <p id={`${id}-err`} class="error field-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** The label with a required marker. */
export function LabelText({ prop }: { prop: Prop }) {
  return (
    <>
      {labelOf(prop)}
      {prop.optional || prop.default !== undefined ? (
        <span class="muted"> (optional)</span>
      ) : (
        <span class="required"> (required)</span>
      )}
    </>
  );
}

/** A field's frame: label, input, notes. */
function Frame({ props, children }: { props: FieldProps; children: ComponentChildren }) {
  const { prop, id, error } = props;
  return (
    <div class="field">
      <label for={id}>
        <LabelText prop={prop} />
      </label>
      {children}
      <FieldNotes id={id} prop={prop} error={error} />
    </div>
  );
}

function common(props: FieldProps) {
  return {
    id: props.id,
    name: props.prop.name,
    "aria-describedby": describedBy(props.id, props.prop, props.error),
    "aria-invalid": props.error ? true : undefined,
    required: props.prop.optional !== true && props.prop.default === undefined && !props.secretSaved,
  };
}

/** A string input (a password input for secrets, which never shows a saved value). */
export function StringField(props: FieldProps) {
  const { prop, value, onChange, secretSaved } = props;
  return (
    <Frame props={props}>
      <input
        {...common(props)}
        {...(prop.secret
          ? { type: "password" as const, autocomplete: "new-password" }
          : { type: "text" as const, autocomplete: "off" })}
        placeholder={
          prop.secret && secretSaved
            ? "saved (hidden); type to replace"
            : prop.default !== undefined
              ? String(prop.default)
              : ""
        }
        value={typeof value === "string" ? value : ""}
        onInput={(e) => onChange(e.currentTarget.value === "" ? undefined : e.currentTarget.value)}
      />
    </Frame>
  );
}

/** An integer input, with min and max. */
export function IntegerField(props: FieldProps) {
  const { prop, value, onChange } = props;
  const [text, setText] = useState(value === undefined ? "" : String(value));
  useEffect(() => {
    if (value === undefined ? text !== "" : Number(text) !== value)
      setText(value === undefined ? "" : String(value));
  }, [value]);
  return (
    <Frame props={props}>
      <input
        {...common(props)}
        type="number"
        step={1}
        inputMode="numeric"
        min={prop.min}
        max={prop.max}
        placeholder={prop.default !== undefined ? String(prop.default) : ""}
        value={text}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          const n = Number(t);
          onChange(t.trim() === "" ? undefined : Number.isInteger(n) ? n : t);
        }}
      />
    </Frame>
  );
}

/** A checkbox (required booleans still allow false). */
export function BooleanField(props: FieldProps) {
  const { prop, id, value, onChange, error } = props;
  const checked = value === undefined ? prop.default === true : value === true;
  return (
    <div class="field">
      <div class="check">
        <input
          id={id}
          name={prop.name}
          type="checkbox"
          checked={checked}
          aria-describedby={describedBy(id, prop, error)}
          aria-invalid={error ? true : undefined}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
        <label for={id}>{labelOf(prop)}</label>
      </div>
      <FieldNotes id={id} prop={prop} error={error} />
    </div>
  );
}

/** A JSON text area for `object` (must be an object) and `any` (JSON, else the text itself). */
export function JsonField(props: FieldProps) {
  const { prop, value, onChange } = props;
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  const [local, setLocal] = useState<string | undefined>();
  return (
    <Frame props={{ ...props, error: props.error ?? local }}>
      <textarea
        {...common({ ...props, error: props.error ?? local })}
        rows={4}
        class="mono"
        spellcheck={false}
        placeholder={prop.type === "object" ? '{"key": "value"}' : "JSON or text"}
        value={text}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          if (t.trim() === "") {
            setLocal(undefined);
            onChange(undefined);
            return;
          }
          try {
            const parsed = JSON.parse(t) as unknown;
            if (
              prop.type === "object" &&
              (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
            ) {
              setLocal('Enter a JSON object, such as {"key": "value"}');
              return;
            }
            setLocal(undefined);
            onChange(parsed);
          } catch {
            if (prop.type === "object") setLocal("This is not valid JSON");
            else {
              setLocal(undefined);
              onChange(t);
            }
          }
        }}
      />
    </Frame>
  );
}

/** A select over options (static, or loaded ones passed in). */
export function SelectField(props: FieldProps & { options: Option[]; children?: ComponentChildren }) {
  const { value, onChange, options } = props;
  const list =
    value !== undefined && !options.some((o) => same(o.value, value))
      ? [{ label: `${JSON.stringify(value)} (current)`, value }, ...options]
      : options;
  const index = list.findIndex((o) => same(o.value, value));
  return (
    <div class="field">
      <label for={props.id}>
        <LabelText prop={props.prop} />
      </label>
      {props.children}
      <select
        {...common(props)}
        value={index === -1 ? "" : String(index)}
        onChange={(e) => {
          const i = e.currentTarget.value;
          onChange(i === "" ? undefined : list[Number(i)]?.value);
        }}
      >
        <option value="">
          {props.prop.default !== undefined ? `Default (${String(props.prop.default)})` : "Choose…"}
        </option>
        {list.map((o, i) => (
          <option key={i} value={String(i)}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldNotes id={props.id} prop={props.prop} error={props.error} />
    </div>
  );
}

/** Checkboxes for an array prop with options: each checked option's value, in option order. */
export function MultiChoiceField(
  props: FieldProps & { options: Option[]; children?: ComponentChildren; footer?: ComponentChildren },
) {
  const { prop, id, value, onChange, options, error } = props;
  const chosen = Array.isArray(value) ? value : [];
  const extra = chosen
    .filter((v) => !options.some((o) => same(o.value, v)))
    .map((v) => ({ label: `${JSON.stringify(v)} (current)`, value: v }));
  const all = [...extra, ...options];
  return (
    <fieldset class="field" aria-describedby={describedBy(id, prop, error)}>
      <legend>
        <LabelText prop={prop} />
      </legend>
      {props.children}
      <div class="choices">
        {all.map((o, i) => (
          <div class="check" key={i}>
            <input
              id={`${id}-${i}`}
              type="checkbox"
              checked={chosen.some((v) => same(v, o.value))}
              onChange={(e) => {
                const next = e.currentTarget.checked
                  ? [...chosen, o.value]
                  : chosen.filter((v) => !same(v, o.value));
                onChange(
                  next.length
                    ? all.filter((x) => next.some((v) => same(v, x.value))).map((x) => x.value)
                    : undefined,
                );
              }}
            />
            <label for={`${id}-${i}`}>{o.label}</label>
          </div>
        ))}
        {all.length === 0 ? <p class="muted">No options.</p> : null}
      </div>
      {props.footer}
      <FieldNotes id={id} prop={prop} error={error} />
    </fieldset>
  );
}

/** Rows of values for `string[]`, `integer[]` and `boolean[]` without options. */
export function ArrayField(props: FieldProps) {
  const { prop, id, value, onChange, error } = props;
  const base = prop.type.slice(0, -2);
  const rows: unknown[] = Array.isArray(value) ? value : [];
  const set = (next: unknown[]) => onChange(next.length ? next : undefined);
  const label = labelOf(prop);
  return (
    <fieldset class="field" aria-describedby={describedBy(id, prop, error)}>
      <legend>
        <LabelText prop={prop} />
      </legend>
      {rows.map((row, i) => (
        <div class="row" key={i}>
          {base === "boolean" ? (
            <select
              aria-label={`${label}, item ${i + 1}`}
              value={String(row)}
              onChange={(e) => set(rows.map((r, j) => (j === i ? e.currentTarget.value === "true" : r)))}
            >
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input
              aria-label={`${label}, item ${i + 1}`}
              {...(base === "integer"
                ? { type: "number" as const }
                : prop.secret
                  ? { type: "password" as const }
                  : { type: "text" as const })}
              step={base === "integer" ? 1 : undefined}
              value={row === undefined ? "" : String(row)}
              onInput={(e) => {
                const t = e.currentTarget.value;
                const v =
                  base === "integer" && t.trim() !== "" && Number.isInteger(Number(t)) ? Number(t) : t;
                set(rows.map((r, j) => (j === i ? v : r)));
              }}
            />
          )}
          <button
            type="button"
            class="small"
            aria-label={`Remove ${label}, item ${i + 1}`}
            onClick={() => set(rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="small"
        onClick={() => set([...rows, base === "boolean" ? false : base === "integer" ? 0 : ""])}
      >
        Add {label} item
      </button>
      <FieldNotes id={id} prop={prop} error={error} />
    </fieldset>
  );
}

/** A timer: an interval in seconds, or a cron expression with an optional time zone. */
export function TimerField(props: FieldProps) {
  const { prop, id, value, onChange, error } = props;
  const current = (value ?? prop.default ?? {}) as {
    intervalSeconds?: number;
    cron?: string;
    timezone?: string;
  };
  const [mode, setMode] = useState<"interval" | "cron">(current.cron ? "cron" : "interval");
  return (
    <fieldset class="field" aria-describedby={describedBy(id, prop, error)}>
      <legend>
        <LabelText prop={prop} />
      </legend>
      <div class="row">
        <div class="check">
          <input
            id={`${id}-mode-interval`}
            type="radio"
            name={`${id}-mode`}
            checked={mode === "interval"}
            onChange={() => setMode("interval")}
          />
          <label for={`${id}-mode-interval`}>Every N seconds</label>
        </div>
        <div class="check">
          <input
            id={`${id}-mode-cron`}
            type="radio"
            name={`${id}-mode`}
            checked={mode === "cron"}
            onChange={() => setMode("cron")}
          />
          <label for={`${id}-mode-cron`}>Cron schedule</label>
        </div>
      </div>
      {mode === "interval" ? (
        <div class="field">
          <label for={`${id}-interval`}>Interval in seconds</label>
          <input
            id={`${id}-interval`}
            type="number"
            min={1}
            step={1}
            value={current.intervalSeconds ?? ""}
            onInput={(e) => {
              const n = Number(e.currentTarget.value);
              onChange(Number.isInteger(n) && n > 0 ? { intervalSeconds: n } : undefined);
            }}
          />
          {current.intervalSeconds ? (
            <p class="hint">Runs {describeInterval(current.intervalSeconds)}.</p>
          ) : null}
        </div>
      ) : (
        <div class="row wrap">
          <div class="field">
            <label for={`${id}-cron`}>Cron expression</label>
            <input
              id={`${id}-cron`}
              class="mono"
              placeholder="*/5 * * * *"
              value={current.cron ?? ""}
              onInput={(e) => {
                const cron = e.currentTarget.value.trim();
                onChange(
                  cron ? { cron, ...(current.timezone ? { timezone: current.timezone } : {}) } : undefined,
                );
              }}
            />
          </div>
          <div class="field">
            <label for={`${id}-tz`}>Time zone (optional)</label>
            <input
              id={`${id}-tz`}
              placeholder="UTC"
              value={current.timezone ?? ""}
              onInput={(e) => {
                const timezone = e.currentTarget.value.trim();
                onChange({ cron: current.cron ?? "", ...(timezone ? { timezone } : {}) });
              }}
            />
          </div>
        </div>
      )}
      <FieldNotes id={id} prop={prop} error={error} />
    </fieldset>
  );
}

/** Static options of a prop, normalised. */
export function staticOptions(prop: Prop): Option[] | undefined {
  return Array.isArray(prop.options) ? toOptions(prop.options) : undefined;
}
