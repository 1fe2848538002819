/**
 * The REST API's JSON shapes: snake_case fields, times in epoch seconds (`*_at`) as Pipedream's
 * API does, except `indexed_at_ms`.
 */
import type { PropDescription } from "@hookline/core";
import type {
  AccountView,
  ComponentView,
  DeliveryView,
  Hookline,
  SourceView,
  WebhookView,
} from "@hookline/engine";
import type { LogLine, Replay, Subscription } from "@hookline/store";

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * A webhook, with its health: `failing_since` (every attempt since then failed) and
 * `circuit_open_until` (this node's delivery worker holds its deliveries until then).
 */
export function webhookJson(w: WebhookView, hookline: Pick<Hookline, "worker">) {
  const circuit = hookline.worker?.circuitOpenUntil(w.id);
  return {
    id: w.id,
    url: w.url,
    name: w.name ?? null,
    description: w.description ?? null,
    active: w.active,
    disabled_reason: w.disabledReason ?? null,
    failing_since: w.failingSince === undefined ? null : seconds(w.failingSince),
    circuit_open_until: circuit === undefined ? null : seconds(circuit),
    created_at: seconds(w.createdAt),
    updated_at: seconds(w.updatedAt),
  };
}

/** A subscription. */
export function subscriptionJson(s: Subscription) {
  return {
    id: s.id,
    emitter_id: s.emitterId,
    listener_id: s.listenerId,
    event_name: s.eventName,
    filter: s.filter ?? null,
    created_at: seconds(s.createdAt),
  };
}

/**
 * A component's props as a list, each with its `name`; an app prop says whether it needs a
 * connected account (`needsAccount: false` for `http`, `rss`, `schedule`..., whose forms ask none).
 */
export function propsJson(props: Record<string, PropDescription>, hookline: Pick<Hookline, "accounts">) {
  return Object.entries(props).map(([name, p]) =>
    p.type === "app"
      ? { name, ...p, needsAccount: hookline.accounts.needsAccount(typeof p.app === "string" ? p.app : name) }
      : { name, ...p },
  );
}

/** A saved component. */
export function componentJson(c: ComponentView, hookline: Pick<Hookline, "accounts">) {
  return {
    id: c.id,
    key: c.key ?? c.description.key ?? null,
    name: c.description.name,
    version: c.version ?? c.description.version,
    type: c.description.type,
    description: c.description.description ?? null,
    code_hash: c.codeHash,
    configurable_props: propsJson(c.description.props, hookline),
    created_at: seconds(c.createdAt),
  };
}

/** A deployed source; an HTTP prop's value carries `endpoint_url`. */
export function sourceJson(s: SourceView) {
  const configured: Record<string, unknown> = { ...s.props };
  for (const [name, prop] of Object.entries(s.description.props)) {
    if (prop.type === "$.interface.http" && s.endpoint) configured[name] = { endpoint_url: s.endpoint };
  }
  return {
    id: s.id,
    component_id: s.componentId,
    name: s.name,
    name_slug: s.slug,
    configured_props: configured,
    active: s.active,
    endpoint_url: s.endpoint ?? null,
    next_run_at: s.nextRunAt === undefined ? null : seconds(s.nextRunAt),
    created_at: seconds(s.createdAt),
    updated_at: seconds(s.updatedAt),
  };
}

/** A connected account (never its credentials). */
export function accountJson(a: AccountView) {
  return {
    id: a.id,
    app: a.app,
    name: a.name,
    oauth: a.oauth,
    status: a.status,
    external_user_id: a.externalUserId ?? null,
    expires_at: a.expiresAt !== undefined ? seconds(a.expiresAt) : null,
    created_at: seconds(a.createdAt),
    updated_at: seconds(a.updatedAt),
  };
}

/** A log line. */
export function logJson(l: LogLine) {
  return { seq: l.seq, level: l.level, message: l.message, ts: l.ts };
}

/** A delivery with its attempts. */
export function deliveryJson(d: DeliveryView) {
  return {
    id: d.id,
    event_id: d.eventId,
    emitter_id: d.emitterId,
    event_name: d.channel,
    status: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === "pending" ? seconds(d.nextAttemptAt) : null,
    last_status: d.lastStatus ?? null,
    last_error: d.lastError ?? null,
    created_at: seconds(d.createdAt),
    updated_at: seconds(d.updatedAt),
    attempt_log: d.attemptsLog.map((a) => ({
      id: a.id,
      at: seconds(a.at),
      status: a.status ?? null,
      duration_ms: a.durationMs,
      response: a.responseExcerpt ?? null,
      error: a.error ?? null,
    })),
  };
}

/** A replay job (`rpl_...`) and its progress. */
export function replayJson(r: Replay) {
  return {
    id: r.id,
    subscription_id: r.subscriptionId,
    webhook_id: r.webhookId,
    status: r.status,
    since: r.since === undefined ? null : r.since / 1000,
    until: r.until === undefined ? null : r.until / 1000,
    filter: r.filter ?? null,
    scanned: r.scanned,
    enqueued: r.enqueued,
    cursor: r.cursor,
    error: r.error ?? null,
    created_at: seconds(r.createdAt),
    updated_at: seconds(r.updatedAt),
  };
}
