import type { FaultPoint } from "@hookline/store/adapter";
import type { FaultPlan } from "@hookline/store/testing";
import type { SqlClient } from "../src/index.js";

/** The parts of a commit a statement writes (one statement may write all four), in order. */
function pointsOf(text: string): FaultPoint[] {
  const found = [...text.matchAll(/\bINSERT INTO (dedupe|events|deliveries|logs)\b/gi)].map(
    (match) => match[1]?.toLowerCase() as FaultPoint,
  );
  const order: FaultPoint[] = ["dedupe", "events", "deliveries", "logs"];
  return order.filter((point) => found.includes(point));
}

/**
 * Wraps a SQL client for fault injection: before a statement that writes a part of a commit
 * (`INSERT INTO dedupe`, `events`, `deliveries` or `logs`, alone or together), the plan may throw, inside the
 * commit's transaction, as a lost connection or a crash would.
 */
export function faultyClient(client: SqlClient, plan: FaultPlan): SqlClient {
  const wrap = (inner: SqlClient): SqlClient => {
    const wrapped: SqlClient = {
      async query(text, params) {
        for (const point of pointsOf(text)) plan.before(point);
        return inner.query(text, params);
      },
    };
    if (inner.pipeline) {
      const pipeline = inner.pipeline.bind(inner);
      wrapped.pipeline = async (statements, options) => {
        for (const { text } of statements) for (const point of pointsOf(text)) plan.before(point);
        return pipeline(statements, options);
      };
    }
    if (inner.singleConnection) wrapped.singleConnection = true;
    if (inner.storeOrigins) wrapped.storeOrigins = inner.storeOrigins;
    if (inner.transaction) {
      const transaction = inner.transaction.bind(inner);
      wrapped.transaction = (fn) => transaction((tx) => fn(wrap(tx)));
    }
    if (inner.listen) wrapped.listen = inner.listen.bind(inner);
    if (inner.background) wrapped.background = wrap(inner.background);
    return wrapped;
  };
  return wrap(client);
}
