/**
 * Named (prepared) statements for the `pg` pool client. Postgres parses, analyses and may plan a
 * named statement once per connection instead of at every call; the store's hot statements (the
 * emit batch, the delivery claim, the outcome batch) are long CTEs whose parse and plan cost more
 * than running them, so this was a third of `bench:ingress` on Postgres (docs/benchmarks.md).
 */

/** Distinct statement texts named at most: each is prepared on every connection that runs it. */
export const MAX_NAMED_STATEMENTS = 200;
/** A text is named once it has run this many times (texts built from a request, such as an events
 * filter, rarely repeat: they stay unnamed and take no name). */
export const NAMED_AFTER_RUNS = 3;
/** Distinct unnamed texts whose runs are counted; the count starts over past this. */
const MAX_COUNTED = 1_000;

/** What `pg`'s `query` takes: a text, its values, and a name when the statement is prepared. */
export interface PgQueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

/** The statement names of one pool client; see {@link createStatementNames}. */
export interface StatementNames {
  /** The query config for `text`: named once the text is hot, while names remain. */
  config(text: string, values?: unknown[]): PgQueryConfig;
  /**
   * Called with a failed query's error: a named statement that a schema change made stale
   * ("cached plan must not change result type") gets a new name, so the next run prepares it
   * again. True when the query may simply be run again.
   */
  stale(config: PgQueryConfig, error: unknown): boolean;
}

/** Postgres's error for a prepared statement whose result columns changed with the schema. */
const isStalePlan = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  (error as { code?: unknown }).code === "0A000" &&
  /cached plan must not change result type/.test(String((error as { message?: unknown }).message));

/**
 * Names the statements of one client: a text with parameters is named once it has run
 * {@link NAMED_AFTER_RUNS} times, up to {@link MAX_NAMED_STATEMENTS} texts, so that the statements
 * prepared on each connection stay bounded whatever texts requests build. Statements without
 * parameters (`BEGIN`, `COMMIT`, `SELECT 1`) stay unnamed: they are cheap to parse.
 *
 * @example
 * ```ts
 * const names = createStatementNames();
 * const result = await pool.query(names.config("SELECT * FROM events WHERE id = $1", [id]));
 * ```
 */
export function createStatementNames(): StatementNames {
  const names = new Map<string, string>();
  const runs = new Map<string, number>();
  let next = 0;
  return {
    config(text, values) {
      if (!values || values.length === 0) return { text, values };
      const name = names.get(text);
      if (name) return { name, text, values };
      if (names.size < MAX_NAMED_STATEMENTS) {
        const count = (runs.get(text) ?? 0) + 1;
        if (count >= NAMED_AFTER_RUNS) {
          runs.delete(text);
          const fresh = `hookline_${next++}`;
          names.set(text, fresh);
          return { name: fresh, text, values };
        }
        if (runs.size >= MAX_COUNTED) runs.clear();
        runs.set(text, count);
      }
      return { text, values };
    },
    stale(config, error) {
      if (config.name === undefined || !isStalePlan(error)) return false;
      // pg keeps a name's text per connection: a new name makes every connection prepare it again.
      if (names.get(config.text) === config.name) names.set(config.text, `hookline_${next++}`);
      return true;
    },
  };
}
