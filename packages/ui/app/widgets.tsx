/** Shared controls: errors, copy buttons, switches, confirmations, times. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ApiError } from "./api";

/** An API error as an alert, with its stable code. */
export function ErrorNote({ error, label }: { error: ApiError | undefined; label?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {label ? `${label}: ` : ""}
      {error.message} <code class="code-tag">{error.code}</code>
    </p>
  );
}

/** "Loading…" for a region being read. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A polite live region for results of actions. */
export function Notice({ text }: { text: string }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {text}
    </p>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Without clipboard permission: copy through a selected text area.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** A button that copies `text` and says so. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<"" | "Copied" | "Copy failed">("");
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(""), 2000);
    return () => clearTimeout(t);
  }, [done]);
  return (
    <button
      type="button"
      class="small"
      aria-label={label}
      onClick={async () => setDone((await copyText(text)) ? "Copied" : "Copy failed")}
    >
      <span aria-hidden="true">{done || "Copy"}</span>
      <span class="visually-hidden" aria-live="polite">
        {done}
      </span>
    </button>
  );
}

/** An on/off switch (a button with `role="switch"`). */
export function Switch({
  checked,
  label,
  onChange,
  disabled,
}: {
  checked: boolean;
  label: string;
  onChange: (next: boolean) => void | Promise<void>;
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      role="switch"
      class="switch"
      aria-checked={checked}
      aria-label={label}
      disabled={disabled || busy}
      onClick={async () => {
        setBusy(true);
        try {
          await onChange(!checked);
        } finally {
          setBusy(false);
        }
      }}
    >
      <span class="switch-track" aria-hidden="true">
        <span class="switch-thumb" />
      </span>
      <span class="switch-text">{checked ? "On" : "Off"}</span>
    </button>
  );
}

/**
 * A modal confirmation (the native dialog: focus moves into it, Escape cancels, focus returns).
 * Rendered while `open`; `onConfirm` may throw an error to show.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setError(undefined);
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <ErrorNote error={error} />
      <div class="row end">
        <button type="button" onClick={() => ref.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
              ref.current?.close();
            } catch (e) {
              setError(e as ApiError);
            } finally {
              setBusy(false);
            }
          }}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "3 minutes ago" for an epoch-milliseconds time. */
export function relative(ms: number, now = Date.now()): string {
  const s = Math.round((ms - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return rtf.format(s, "second");
  if (abs < 2700) return rtf.format(Math.round(s / 60), "minute");
  if (abs < 64800) return rtf.format(Math.round(s / 3600), "hour");
  return rtf.format(Math.round(s / 86400), "day");
}

/** A `<time>` showing a relative time, with the exact time on hover. */
export function Time({ ms }: { ms: number | null | undefined }) {
  if (ms === null || ms === undefined) return <span class="muted">never</span>;
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {relative(ms)}
    </time>
  );
}

/** A labelled search field. */
export function SearchField(p: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
}) {
  return (
    <>
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        type="search"
        placeholder={p.placeholder}
        value={p.value}
        onInput={(e) => p.onChange(e.currentTarget.value)}
      />
    </>
  );
}

/**
 * A list as a table (cards on narrow screens) with a hidden caption, column headers and a last,
 * unnamed column for actions; `children` are its rows.
 */
export function ListTable({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: string[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class="list">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The last cell of a list row: a Delete button naming what it deletes. */
export function DeleteCell({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <td data-label="Actions">
      <button type="button" class="small danger-text" aria-label={`Delete ${name}`} onClick={onClick}>
        Delete
      </button>
    </td>
  );
}

/** A labelled text input in a field (other input attributes pass through). */
export function TextField({
  id,
  label,
  value,
  onChange,
  class: className,
  ...input
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  class?: string;
  type?: "text" | "url" | "datetime-local";
  required?: boolean;
  placeholder?: string;
}) {
  return (
    <div class={className ? `field ${className}` : "field"}>
      <label for={id}>{label}</label>
      <input
        id={id}
        {...(input as Record<string, unknown>)}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    </div>
  );
}

/**
 * A timer's next run (`next_run_at`, epoch seconds, as the API reports it): "next run in 4 minutes"
 * with the exact time beside it; nothing when the API reports none (inactive, or an older server).
 */
export function NextRun({ at }: { at: number | null | undefined }) {
  if (typeof at !== "number") return null;
  const date = new Date(at * 1000);
  return (
    <span class="next-run">
      {" · next run "}
      {/* A page left open past the tick: the server runs it (and moves next_run_at) any moment. */}
      <time dateTime={date.toISOString()}>{at * 1000 <= Date.now() ? "due now" : relative(at * 1000)}</time>
      <span class="muted"> ({date.toLocaleString()})</span>
    </span>
  );
}
