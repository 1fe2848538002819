/**
 * The variable picker of a step's prop: what the prop's value can refer to, as a tree of the real
 * values of the last run (the trigger's event, each earlier step's return value and exports) and
 * the workspace's environment variables. Choosing one inserts `{{steps.<step>.<path>}}` or
 * `{{process.env.NAME}}` into the prop.
 */
import { useState } from "preact/hooks";
import type { Execution } from "../types";
import { childPath } from "./expr";

/** What the picker offers. */
export interface PickerScope {
  /** The last run (its event and step records), if any. */
  run?: Execution | undefined;
  /** The steps before the one being configured. */
  earlier: string[];
  /** The workspace's environment variable names. */
  env: string[];
}

const MAX_KEYS = 40;
const MAX_DEPTH = 5;

function preview(value: unknown): string {
  if (value === undefined) return "undefined";
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** One value and its children: a button that inserts its path, then its keys. */
function Node({
  label,
  path,
  value,
  depth,
  onPick,
}: {
  label: string;
  path: string;
  value: unknown;
  depth: number;
  onPick: (path: string) => void;
}) {
  const children =
    value !== null && typeof value === "object" && depth < MAX_DEPTH
      ? Object.entries(value as Record<string, unknown>).slice(0, MAX_KEYS)
      : [];
  return (
    <li>
      <button type="button" class="var-pick" onClick={() => onPick(path)} aria-label={`Insert ${path}`}>
        <span class="mono">{label}</span>
      </button>{" "}
      <span class="muted mono small-text">{preview(value)}</span>
      {children.length > 0 ? (
        <ul>
          {children.map(([k, v]) => {
            const key = Array.isArray(value) ? Number(k) : k;
            return (
              <Node
                key={k}
                label={String(k)}
                path={childPath(path, key)}
                value={v}
                depth={depth + 1}
                onPick={onPick}
              />
            );
          })}
        </ul>
      ) : null}
    </li>
  );
}

/** The picker: a button that opens the tree; `onInsert` gets `{{...}}`. */
export function VariablePicker({
  id,
  propLabel,
  scope,
  onInsert,
}: {
  id: string;
  propLabel: string;
  scope: PickerScope;
  onInsert: (expression: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const pick = (path: string) => {
    onInsert(`{{${path}}}`);
    setOpen(false);
  };
  const records = new Map((scope.run?.steps ?? []).map((s) => [s.name, s]));
  return (
    <div class="var-picker">
      <button
        type="button"
        class="small"
        aria-expanded={open}
        aria-controls={`${id}-vars`}
        onClick={() => setOpen(!open)}
      >
        Insert variable into {propLabel}
      </button>
      {open ? (
        <section id={`${id}-vars`} class="var-tree" aria-label={`Variables for ${propLabel}`}>
          {scope.run ? null : (
            <p class="muted small-text">Test the workflow to see the values of its last run here.</p>
          )}
          <ul>
            <Node
              label="steps.trigger.event"
              path="steps.trigger.event"
              value={scope.run?.event}
              depth={0}
              onPick={pick}
            />
            {scope.earlier.map((name) => {
              const record = records.get(name);
              return (
                <li key={name}>
                  <span class="var-step">steps.{name}</span>
                  <ul>
                    <Node
                      label="$return_value"
                      path={`steps.${name}.$return_value`}
                      value={record?.return_value}
                      depth={1}
                      onPick={pick}
                    />
                    {Object.entries(record?.exports ?? {}).map(([k, v]) => (
                      <Node
                        key={k}
                        label={k}
                        path={childPath(`steps.${name}`, k)}
                        value={v}
                        depth={1}
                        onPick={pick}
                      />
                    ))}
                  </ul>
                </li>
              );
            })}
          </ul>
          <p class="var-step">Environment variables</p>
          {scope.env.length === 0 ? (
            <p class="muted small-text">
              None yet: set them on the <a href="/settings/env">Environment variables</a> page.
            </p>
          ) : (
            <ul>
              {scope.env.map((name) => (
                <li key={name}>
                  <button
                    type="button"
                    class="var-pick"
                    aria-label={`Insert process.env.${name}`}
                    onClick={() => pick(`process.env.${name}`)}
                  >
                    <span class="mono">process.env.{name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </div>
  );
}
