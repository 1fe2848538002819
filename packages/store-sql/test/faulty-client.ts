import type { FaultPoint } from "@hookline/store/adapter";
import type { FaultPlan } from "@hookline/store/testing";
import type { SqlClient } from "../src/index.js";

/** The part of a commit a statement writes, if any. */
function pointOf(text: string): FaultPoint | undefined {
  const match = /^\s*INSERT INTO (dedupe|events|deliveries)\b/i.exec(text);
  return match?.[1]?.toLowerCase() as FaultPoint | undefined;
}

/**
 * Wraps a SQL client for fault injection: before a statement that writes one part of a commit
 * (`INSERT INTO dedupe`, `events` or `deliveries`), the plan may throw, inside the commit's
 * transaction, as a lost connection or a crash would.
 */
export function faultyClient(client: SqlClient, plan: FaultPlan): SqlClient {
  const wrap = (inner: SqlClient): SqlClient => {
    const wrapped: SqlClient = {
      async query(text, params) {
        const point = pointOf(text);
        if (point) plan.before(point);
        return inner.query(text, params);
      },
    };
    if (inner.transaction) {
      const transaction = inner.transaction.bind(inner);
      wrapped.transaction = (fn) => transaction((tx) => fn(wrap(tx)));
    }
    if (inner.listen) wrapped.listen = inner.listen.bind(inner);
    return wrapped;
  };
  return wrap(client);
}
