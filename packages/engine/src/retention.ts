/**
 * Retention: how much history each source keeps, applied off the emit path. The emit pipeline and
 * the log writer only mark a source as written ({@link Retention.touch}); a sweep, scheduled a moment
 * later (and run at close), trims each written source's events and logs by count AND by bytes.
 */
import type { Store } from "@hookline/store";

/** How much history each source keeps, and how soon after a write it is trimmed. */
export interface RetentionOptions {
  /** Events kept per source (the newest): 10,000 by default. */
  events?: number;
  /** Bytes of events kept per source (the UTF-8 size of each body as JSON): 100 MiB by default. */
  eventBytes?: number;
  /** Log lines kept per source: 1,000 by default. */
  logs?: number;
  /** Bytes of log messages kept per source: 10 MiB by default. */
  logBytes?: number;
  /** Executions kept per workflow (the newest; running ones are never removed): 1,000 by default. */
  executions?: number;
  /** How long after a write its source is trimmed, in milliseconds: 5,000 by default. */
  intervalMs?: number;
}

/** Default events kept per source. */
export const DEFAULT_RETAINED_EVENTS = 10_000;
/** Default bytes of events kept per source: 100 MiB. */
export const DEFAULT_RETAINED_EVENT_BYTES = 100 * 1024 * 1024;
/** Default log lines kept per source. */
export const DEFAULT_RETAINED_LOGS = 1_000;
/** Default bytes of log messages kept per source: 10 MiB. */
export const DEFAULT_RETAINED_LOG_BYTES = 10 * 1024 * 1024;
/** Default executions kept per workflow. */
export const DEFAULT_RETAINED_EXECUTIONS = 1_000;
/** Default delay between a write and the trim of its source: 5 s. */
export const DEFAULT_RETENTION_INTERVAL_MS = 5_000;

/** The retention of one engine. */
export interface Retention {
  /** Marks a source as written (events or logs): it is trimmed at the next sweep. */
  touch(sourceId: string): void;
  /** Trims every source written since the last sweep now; returns how many rows it deleted. */
  sweep(): Promise<number>;
  /** Stops scheduling and runs a last sweep. */
  close(): Promise<void>;
}

/**
 * Makes the retention of an engine over `store`.
 *
 * @param store - The store.
 * @param options - Bounds and interval.
 * @param onError - Gets errors of scheduled sweeps (they never reach a caller).
 * @example
 * ```ts
 * const retention = createRetention(store, { events: 100 });
 * retention.touch("dc_...");
 * await retention.sweep(); // or wait `intervalMs`
 * ```
 */
export function createRetention(
  store: Store,
  options: RetentionOptions = {},
  onError: (error: unknown) => void = () => undefined,
): Retention {
  const events = {
    count: options.events ?? DEFAULT_RETAINED_EVENTS,
    bytes: options.eventBytes ?? DEFAULT_RETAINED_EVENT_BYTES,
  };
  const logs = {
    count: options.logs ?? DEFAULT_RETAINED_LOGS,
    bytes: options.logBytes ?? DEFAULT_RETAINED_LOG_BYTES,
  };
  const executions = options.executions ?? DEFAULT_RETAINED_EXECUTIONS;
  const intervalMs = options.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS;
  let dirty = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<number> = Promise.resolve(0);

  const sweep = (): Promise<number> => {
    // One sweep at a time: a sweep asked for while one runs waits for it, then takes what is left.
    const next = running.then(async () => {
      const sources = [...dirty];
      dirty = new Set();
      let deleted = 0;
      for (const [i, id] of sources.entries()) {
        try {
          deleted += await store.events.trim(id, events);
          deleted += await store.logs.trim(id, logs);
          // A workflow (`p_`): its executions too.
          if (id.startsWith("p_") && store.executions) deleted += await store.executions.trim(id, executions);
        } catch (error) {
          // Not lost: the sources not trimmed yet wait for the next sweep.
          for (const rest of sources.slice(i)) dirty.add(rest);
          throw error;
        }
      }
      return deleted;
    });
    running = next.catch(() => 0);
    return next;
  };

  return {
    touch(sourceId) {
      dirty.add(sourceId);
      if (timer || closed) return;
      timer = setTimeout(() => {
        timer = undefined;
        sweep().catch(onError);
      }, intervalMs);
      timer.unref?.();
    },
    sweep,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await sweep().catch(onError);
    },
  };
}
