/**
 * `timedClient`: a {@link SqlClient} that reports how long each statement takes, for metrics. It
 * keeps every capability of the client it wraps (pipelines, transactions, the background client,
 * `listen`), so the store behaves the same over it.
 */
import type { SqlClient } from "./clients.js";

/** What {@link timedClient} reports to. */
export interface StatementObserver {
  /** One statement (or pipeline) ended after `durationMs`; `failed` when it threw. */
  observeStatement(durationMs: number, failed: boolean): void;
  /** Statements started and not ended (optional). */
  statementsInFlight?: {
    /** A statement started. */
    inc(): void;
    /** A statement ended. */
    dec(): void;
  };
}

/**
 * Wraps `client` so that each statement, pipeline and transaction statement is timed.
 *
 * @example
 * ```ts
 * const metrics = createMetrics(hookline); // @hookline/http/metrics
 * const store = await createSqlStore(timedClient(pgPoolClient(pool), metrics));
 * ```
 */
export function timedClient(client: SqlClient, observer: StatementObserver): SqlClient {
  const inFlight = observer.statementsInFlight;
  async function timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    inFlight?.inc();
    let failed = true;
    try {
      const result = await work();
      failed = false;
      return result;
    } finally {
      inFlight?.dec();
      observer.observeStatement(performance.now() - started, failed);
    }
  }
  const wrapped: SqlClient = {
    query: (text, params) => timed(() => client.query(text, params)),
  };
  if (client.pipeline) {
    const pipeline = client.pipeline.bind(client);
    wrapped.pipeline = (statements, options) => timed(() => pipeline(statements, options));
  }
  if (client.transaction) {
    const transaction = client.transaction.bind(client);
    wrapped.transaction = (fn) => transaction((tx) => fn(timedClient(tx, observer)));
  }
  if (client.parallelTransactions !== undefined) wrapped.parallelTransactions = client.parallelTransactions;
  if (client.singleConnection !== undefined) wrapped.singleConnection = client.singleConnection;
  if (client.storeOrigins) wrapped.storeOrigins = client.storeOrigins;
  if (client.background) wrapped.background = timedClient(client.background, observer);
  if (client.listen) wrapped.listen = client.listen.bind(client);
  return wrapped;
}
