/**
 * The engine's typed internal events (mitt). Observers (the SSE fan-out, metrics, tests) subscribe
 * with `hookline.events.on(type, handler)`. Handlers run synchronously after the change is stored;
 * a throwing handler is isolated and does not fail the operation.
 */
import type { DeliveryAttemptReport } from "@hookline/delivery";
import type { ExecutionStatus, LogLine, StoredEvent } from "@hookline/store";

/** Event payloads by type. */
export type HooklineEvents = {
  /** A source emitted an event (after dedupe, once stored with its deliveries). */
  emit: {
    workspaceId: string;
    sourceId: string;
    event: StoredEvent;
    deliveryIds: string[];
    /**
     * Set when another node sharing the store stored it (read back through the store's
     * notifications); `deliveryIds` is then empty.
     */
    remote?: true;
  };
  /** A component wrote log lines (console output, errors, hook results). */
  log: {
    workspaceId: string;
    sourceId: string;
    lines: LogLine[];
    /** Set when another node sharing the store wrote them. */
    remote?: true;
  };
  /** A source was deployed, updated, activated, deactivated or deleted. */
  source: {
    workspaceId: string;
    sourceId: string;
    change: "deployed" | "updated" | "activated" | "deactivated" | "deleted";
  };
  /** An invocation finished (run, hook, options...). */
  invocation: {
    workspaceId: string;
    sourceId: string;
    kind: "run" | "deploy" | "activate" | "deactivate" | "options" | "additionalProps";
    /** What started a run (`apphook`: another source's event fed through a subscription). */
    trigger?: "http" | "timer" | "manual" | "apphook";
    durationMs: number;
    error?: { code: string; message: string };
  };
  /** A workflow execution changed status: accepted (`queued`/`running`), then its end. */
  execution: {
    workspaceId: string;
    workflowId: string;
    executionId: string;
    status: ExecutionStatus;
    /** At the end of a run (not when accepted): each step that ran, its status and time. */
    steps?: { name: string; status: string; durationMs: number }[];
  };
  /**
   * The delivery worker recorded an HTTP attempt (this node's worker): its outcome, duration, and
   * whether it disabled the webhook or opened its circuit.
   */
  attempt: DeliveryAttemptReport;
  /** The sandbox pool terminated a thread that could not be interrupted and started another. */
  sandbox: { change: "thread_replaced"; thread: number; replaced: number };
  /** A workflow step called `$.send.sse(payload)`: what the workflow's SSE stream sends. */
  sse: {
    workspaceId: string;
    workflowId: string;
    executionId: string;
    step: string;
    payload: unknown;
    ts: number;
  };
  /**
   * A connected account changed: connected (created or reconnected through OAuth), updated,
   * refreshed (new OAuth tokens), `needs_reconnect` (the provider refused a refresh),
   * `refresh_failed` (a refresh failed for another reason: the current token is kept) or deleted.
   */
  account: {
    workspaceId: string;
    accountId: string;
    app: string;
    change:
      | "connected"
      | "reconnected"
      | "updated"
      | "refreshed"
      | "needs_reconnect"
      | "refresh_failed"
      | "deleted";
    externalUserId?: string;
    /** Why, for `needs_reconnect` and `refresh_failed` (the provider's error code, or the error). */
    reason?: string;
  };
};
