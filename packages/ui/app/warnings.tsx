/**
 * Warnings the API answers beside a result (`ssrf_blocked` for a webhook URL the SSRF guard
 * refuses): shown where the user lands, also after a navigation (the create form routes to the new
 * webhook's page, which takes the warnings kept for it).
 */
import type { ApiWarning } from "./api";

const kept = new Map<string, ApiWarning[]>();

/** Keeps `warnings` for the page that shows `key` next. */
export function keepWarnings(key: string, warnings: ApiWarning[]): void {
  if (warnings.length > 0) kept.set(key, warnings);
}

/** The warnings kept for `key`, once. */
export function takeWarnings(key: string): ApiWarning[] {
  const warnings = kept.get(key) ?? [];
  kept.delete(key);
  return warnings;
}

/** Each warning as an alert, with its stable code. */
export function Warnings({ warnings }: { warnings: ApiWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <div class="alert alert-warning" role="alert">
      {warnings.map((w) => (
        <p key={`${w.code}:${w.path ?? ""}`}>
          <strong>Warning{w.path ? ` (${w.path})` : ""}:</strong> {w.message}{" "}
          <code class="code-tag">{w.code}</code>
        </p>
      ))}
    </div>
  );
}
