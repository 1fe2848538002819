/** Shared TypeBox schemas of the REST API (parameters and response data). */
import Type from "typebox";

/** `limit` and `after` of list routes. */
export const ListParams = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: "Items per page (default 20, at most 100)" }),
  ),
  after: Type.Optional(Type.String({ description: "Cursor: the `end_cursor` of the previous page" })),
};

/** `after` of lists paged by sequence number (events, logs): the digits of an `end_cursor`. */
export const SeqCursor = Type.Optional(
  Type.String({
    pattern: "^[0-9]{1,15}$",
    description: "Cursor: the `end_cursor` of the previous page",
    "x-error": "must be the end_cursor of a previous page (digits)",
  }),
);

/** A webhook. */
export const WebhookData = Type.Object({
  id: Type.String({ pattern: "^wh_" }),
  url: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  failing_since: Type.Union([Type.Integer(), Type.Null()], {
    description: "Since when every attempt has failed (epoch seconds); null once one succeeds",
  }),
  circuit_open_until: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "Until when this node's delivery worker holds the webhook's deliveries after failed attempts in a row (its circuit breaker; epoch seconds); null when closed",
  }),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** A subscription. */
export const SubscriptionData = Type.Object({
  id: Type.String({ pattern: "^sub_" }),
  emitter_id: Type.String(),
  listener_id: Type.String(),
  event_name: Type.Union([Type.String(), Type.Null()]),
  filter: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: "Only events matching this filter become deliveries (docs/rest-api.md#filters)",
  }),
  created_at: Type.Integer(),
});

/** A saved component. */
export const ComponentData = Type.Object({
  id: Type.String({ pattern: "^sc_" }),
  key: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  version: Type.String(),
  type: Type.Union([Type.Literal("source"), Type.Literal("action")]),
  description: Type.Union([Type.String(), Type.Null()]),
  code_hash: Type.String(),
  configurable_props: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
  created_at: Type.Integer(),
});

/** A deployed source. */
export const SourceData = Type.Object({
  id: Type.String({ pattern: "^dc_" }),
  component_id: Type.String(),
  name: Type.String(),
  name_slug: Type.String(),
  configured_props: Type.Record(Type.String(), Type.Unknown()),
  active: Type.Boolean(),
  endpoint_url: Type.Union([Type.String(), Type.Null()]),
  next_run_at: Type.Union([Type.Integer(), Type.Null()], {
    description: "When an active timer source runs next (epoch seconds); null otherwise",
  }),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** A connected account. */
export const AccountData = Type.Object({
  id: Type.String({ pattern: "^apn_" }),
  app: Type.String(),
  name: Type.String(),
  oauth: Type.Boolean({ description: "Connected through OAuth: its tokens are refreshed by the server" }),
  status: Type.Union([Type.Literal("active"), Type.Literal("needs_reconnect")], {
    description: "needs_reconnect once the provider refused a refresh: connect it again",
  }),
  external_user_id: Type.Union([Type.String(), Type.Null()], {
    description: "The embedding app's end user who owns it (Connect)",
  }),
  expires_at: Type.Union([Type.Integer(), Type.Null()], { description: "When its access token expires" }),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** A log line. */
export const LogData = Type.Object({
  seq: Type.Integer(),
  level: Type.String(),
  message: Type.String(),
  ts: Type.Integer(),
});

/** The state of a delivery: `paused` waits for its disabled webhook to be enabled again. */
export const DeliveryStatus = Type.Union([
  Type.Literal("pending"),
  Type.Literal("paused"),
  Type.Literal("delivering"),
  Type.Literal("succeeded"),
  Type.Literal("failed"),
]);

/** A delivery with its attempts. */
export const DeliveryData = Type.Object({
  id: Type.String({ pattern: "^dlv_" }),
  event_id: Type.String(),
  emitter_id: Type.String(),
  event_name: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Type.Integer(), Type.Null()]),
  last_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
  attempt_log: Type.Array(Type.Unknown()),
});

/** `{ deleted: true }`. */
export const Deleted = Type.Object({ deleted: Type.Literal(true) });

const Percentile = Type.Union([Type.Number(), Type.Null()]);

/** A webhook's delivery metrics over a window. */
export const MetricsData = Type.Object({
  webhook_id: Type.String({ pattern: "^wh_" }),
  since: Type.Integer({ description: "Start of the window, epoch seconds" }),
  until: Type.Integer({ description: "End of the window (excluded), epoch seconds" }),
  attempts: Type.Integer(),
  succeeded: Type.Integer({ description: "Attempts answered with a 2xx" }),
  failed: Type.Integer(),
  success_rate: Type.Union([Type.Number(), Type.Null()], {
    description: "succeeded / attempts; null without attempts",
  }),
  status_classes: Type.Object({
    "1xx": Type.Integer(),
    "2xx": Type.Integer(),
    "3xx": Type.Integer(),
    "4xx": Type.Integer(),
    "5xx": Type.Integer(),
    error: Type.Integer({ description: "No answer: a timeout, a connection error, the SSRF guard" }),
  }),
  latency_ms: Type.Object(
    { p50: Percentile, p95: Percentile, p99: Percentile },
    { description: "Attempt durations, nearest-rank percentiles; null without attempts" },
  ),
});

const Seconds = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

/** A replay job and its progress. */
export const ReplayData = Type.Object({
  id: Type.String({ pattern: "^rpl_" }),
  subscription_id: Type.String({ pattern: "^sub_" }),
  webhook_id: Type.String(),
  status: Type.Union([Type.Literal("running"), Type.Literal("done"), Type.Literal("failed")], {
    description: "running until the window is exhausted (done) or a batch cannot go on (failed)",
  }),
  since: Seconds("The window's start, epoch seconds (null: from the first event)"),
  until: Seconds("The window's end, epoch seconds, excluded (null: none)"),
  filter: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  scanned: Type.Integer({ description: "Stored events examined so far" }),
  enqueued: Type.Integer({ description: "Deliveries made so far, one per event" }),
  cursor: Type.Union([Type.String(), Type.Null()], { description: "The seq the next batch resumes after" }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** A replay job after a call that ran a batch of it. */
export const ReplayBatchData = Type.Object({
  ...ReplayData.properties,
  batch: Type.Object({
    replayed: Type.Integer({ description: "Deliveries made by this call" }),
    scanned: Type.Integer({ description: "Stored events this call examined" }),
  }),
});
