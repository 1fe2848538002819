/**
 * A workflow's run settings: its retry policy (with the documented default stated where it is
 * set), concurrency, throttle and queue size (docs/workflows.md, "Durable runs"). An empty field
 * leaves the server's default.
 */
import type { Settings } from "./model";

/** The server's default policy, in words (core's DEFAULT_RETRY and NO_RETRY). */
export const RETRY_DEFAULT =
  "8 tries (7 retries), waiting 5 minutes, then doubling up to 4 hours, with 20% jitter: about 9 hours in all. None for an HTTP trigger that answers with $.respond. Test runs never retry unless you ask (below the test event).";

function num(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text);
}

function NumberInput({
  id,
  label,
  value,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  value: number | undefined;
  onChange: (n: number | undefined) => void;
  hint?: string;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={0}
        value={value ?? ""}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onInput={(e) => onChange(num(e.currentTarget.value))}
      />
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** Drops the empty fields of an object (undefined when none is left). */
function compact<T extends object>(o: T): T | undefined {
  const kept = Object.entries(o).filter(([, v]) => v !== undefined && !Number.isNaN(v));
  return kept.length > 0 ? (Object.fromEntries(kept) as T) : undefined;
}

/** The settings form. */
export function SettingsForm({
  settings,
  onChange,
  error,
}: {
  settings: Settings;
  onChange: (s: Settings) => void;
  error?: string | undefined;
}) {
  const retry = settings.retry ?? {};
  const setRetry = (patch: Partial<NonNullable<Settings["retry"]>>) => {
    const next = compact({ ...retry, ...patch });
    onChange({ ...settings, retry: next });
  };
  return (
    <details class="settings">
      <summary>Settings: retries, concurrency, throttle</summary>
      <fieldset>
        <legend>Retries</legend>
        <p class="hint" id="retry-default">
          Default: {RETRY_DEFAULT}
        </p>
        <div class="row wrap">
          <NumberInput
            id="retry-count"
            label="Retries after the first try"
            value={retry.count}
            onChange={(count) => setRetry({ count })}
            hint="0 to 20; 0 never retries"
          />
          <NumberInput
            id="retry-initial"
            label="First wait (ms)"
            value={retry.initial_ms}
            onChange={(initial_ms) => setRetry({ initial_ms })}
          />
          <NumberInput
            id="retry-factor"
            label="Growth factor"
            value={retry.factor}
            onChange={(factor) => setRetry({ factor })}
          />
          <NumberInput
            id="retry-max"
            label="Longest wait (ms)"
            value={retry.max_ms}
            onChange={(max_ms) => setRetry({ max_ms })}
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>Limits</legend>
        <div class="row wrap">
          <NumberInput
            id="concurrency-max"
            label="At most this many runs at once"
            value={settings.concurrency?.max}
            onChange={(max) =>
              onChange({ ...settings, concurrency: max === undefined ? undefined : { max } })
            }
          />
          <NumberInput
            id="throttle-limit"
            label="At most this many starts"
            value={settings.throttle?.limit}
            onChange={(limit) =>
              onChange({
                ...settings,
                throttle:
                  limit === undefined
                    ? undefined
                    : { limit, interval_ms: settings.throttle?.interval_ms ?? 60_000 },
              })
            }
          />
          <NumberInput
            id="throttle-interval"
            label="per interval (ms)"
            value={settings.throttle?.interval_ms}
            onChange={(interval_ms) =>
              onChange({
                ...settings,
                throttle:
                  interval_ms === undefined || settings.throttle === undefined
                    ? settings.throttle
                    : { ...settings.throttle, interval_ms },
              })
            }
          />
          <NumberInput
            id="queue-size"
            label="At most this many runs waiting"
            value={settings.queue_size}
            onChange={(queue_size) => onChange({ ...settings, queue_size })}
          />
        </div>
      </fieldset>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </details>
  );
}
