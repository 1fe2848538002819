/** Foreground replies the gate lets pass in a row while background work waits. */
export const FOREGROUND_BURST = 3;

/** The gate of {@link createBackgroundGate}. */
export interface BackgroundGate {
  /** A foreground message was sent to the thread. */
  sent(): void;
  /** A foreground message was answered (or failed). */
  answered(): void;
  /** Runs one unit of background work (a statement, or a whole transaction) at its turn. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Holds background work (delivery claims and outcomes) back while the requests' statements are in
 * flight. The PGlite thread runs what it receives in order, so a request's emit sent after a claim
 * and an outcome batch waited for both: under a delivery backlog, ingress latency grew by half
 * (docs/benchmarks.md). Over a `pg` pool the statements overlap, but a Postgres on the same machine
 * shares its cores with the server: delivery work then took a third of ingress on Postgres.
 * Background units go one at a time, when no foreground message is in flight or after
 * {@link FOREGROUND_BURST} foreground answers, so that they never starve. "In flight" includes a
 * message sent by the continuations of the answer before it (what a serial group commit does).
 *
 * @example
 * ```ts
 * const gate = createBackgroundGate();
 * gate.sent(); // a request's statement goes out
 * const claimed = gate.run(() => claim()); // waits until it is answered (or three are)
 * gate.answered();
 * await claimed;
 * ```
 */
export function createBackgroundGate(): BackgroundGate {
  let inFlight = 0;
  let passed = 0;
  let busy = false;
  const waiting: (() => void)[] = [];
  const pump = (): void => {
    if (busy || waiting.length === 0) return;
    if (inFlight > 0 && passed < FOREGROUND_BURST) return;
    busy = true;
    passed = 0;
    (waiting.shift() as () => void)();
  };
  return {
    sent() {
      inFlight++;
    },
    answered() {
      inFlight--;
      if (waiting.length === 0) return;
      passed++;
      // The last answer in flight: look again once the answer's own continuations have run. A
      // group commit sends its next group from them, and a lane that is never idle for longer than
      // that is busy: seen as idle at each answer, it let a unit through every time (decision 0428).
      if (inFlight === 0 && passed < FOREGROUND_BURST) setImmediate(pump);
      else pump();
    },
    async run(fn) {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        pump();
      });
      try {
        return await fn();
      } finally {
        busy = false;
        pump();
      }
    },
  };
}
