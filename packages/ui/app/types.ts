/** The JSON shapes of the `/v1` API the app reads (see `GET /v1/openapi.json`). */
import type { EventSummary, PropDescription } from "@hookline/core";

/** A prop as `configurable_props` lists it: core's description with its name. */
export interface Prop extends PropDescription {
  name: string;
  /** For `app` props: false when the app needs no connected account (`rss`, `schedule`...). */
  needsAccount?: boolean;
  /** For `alert` props. */
  alertType?: string;
  content?: string;
}

/** A saved or published component. */
export interface Component {
  id: string;
  key: string | null;
  name: string;
  version: string;
  type: "source" | "action";
  description: string | null;
  code_hash: string;
  configurable_props: Prop[];
  created_at: number;
  visibility?: "private" | "public";
}

/** A deployed source. */
export interface Source {
  id: string;
  component_id: string;
  name: string;
  name_slug: string;
  configured_props: Record<string, unknown>;
  active: boolean;
  endpoint_url: string | null;
  /** When an active timer source runs next (epoch seconds); absent on older servers. */
  next_run_at?: number | null;
  created_at: number;
  updated_at: number;
}

/** An event of a source (`event_summaries` with `expand=event`, and the SSE stream): core's shape. */
export type { EventSummary };

/** A log line. */
export interface LogLine {
  seq: number;
  level: string;
  message: string;
  ts: number;
}

/** A webhook. */
export interface Webhook {
  id: string;
  url: string;
  name: string | null;
  description: string | null;
  active: boolean;
  disabled_reason: string | null;
  /** Since when every attempt failed (epoch seconds); null once one succeeds. */
  failing_since: number | null;
  /** Until when the server's circuit breaker holds its deliveries (epoch seconds); null when closed. */
  circuit_open_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A subscription of a listener (webhook) to an emitter (source). */
export interface Subscription {
  id: string;
  emitter_id: string;
  listener_id: string;
  event_name: string | null;
  /** Only events matching this filter become deliveries (docs/rest-api.md#filters). */
  filter?: Record<string, unknown> | null;
  created_at: number;
}

/** One HTTP attempt of a delivery. */
export interface Attempt {
  id: string;
  at: number;
  status: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
}

/** A delivery of an event to a webhook. */
export interface Delivery {
  id: string;
  event_id: string;
  emitter_id: string;
  event_name: string;
  status: "pending" | "paused" | "delivering" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  attempt_log: Attempt[];
}

/** A connected account (`@hookline/connect`'s shape: one definition for the API's embedders and this app). */
export type { ConnectedAccount as Account } from "@hookline/connect/account";

/** An OAuth client (`/v1/oauth_clients`): never its secret. */
export interface OAuthClient {
  app: string;
  provider: string | null;
  name: string;
  client_id: string;
  has_client_secret: boolean;
  redirect_uri: string;
  authorize_url: string;
  token_url: string;
  scopes: string[];
  token_auth: string;
  docs_url: string | null;
  updated_at: number;
}

/** What `POST /v1/sources/{id}/run` answers. */
export interface RunResult {
  emitted: EventSummary[];
  error: { name?: string; message?: string } | null;
  duration_ms: number;
}

/** A workflow's trigger (DESIGN.md, "Workflows"). */
export interface WorkflowTrigger {
  type: "http" | "timer" | "source" | "manual";
  endpoint_url?: string;
  custom_response?: boolean;
  intervalSeconds?: number;
  cron?: string;
  timezone?: string;
  source_id?: string;
  event_name?: string;
}

/** A workflow `p_...`. */
export interface Workflow {
  id: string;
  name: string;
  active: boolean;
  trigger: WorkflowTrigger;
  steps: { name: string; component_id?: string; component_key?: string; component_code?: string }[];
  /** When an active timer workflow runs next (epoch seconds); absent on older servers. */
  next_run_at?: number | null;
  created_at: number;
  updated_at: number;
}

/** One step of an execution. */
export interface ExecutionStep {
  name: string;
  status: string;
  return_value?: unknown;
  exports?: Record<string, unknown>;
  summary?: string | null;
  logs?: { level?: string; message?: string; ts?: number }[];
  error?: { name?: string; message?: string; code?: string; stack?: string } | null;
  started_at?: number | null;
  started_at_ms?: number | null;
  duration_ms?: number | null;
  attempts?: number;
}

/** A run `exe_...` of a workflow. */
export interface Execution {
  id: string;
  workflow_id: string;
  status: string;
  event?: unknown;
  steps: ExecutionStep[];
  exit_reason?: string | null;
  error?: { name?: string; message?: string; code?: string } | null;
  started_at?: number | null;
  started_at_ms?: number | null;
  finished_at?: number | null;
  finished_at_ms?: number | null;
}

/** `GET /v1/webhooks/{id}/metrics`: a webhook's delivery health over a window. */
export interface WebhookMetrics {
  webhook_id: string;
  since: number;
  until: number;
  attempts: number;
  succeeded: number;
  failed: number;
  success_rate: number | null;
  status_classes: Record<string, number>;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
}
