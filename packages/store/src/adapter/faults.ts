/** Fault injection: how the conformance suite proves that a commit is all or nothing. */

/**
 * The parts of `emits.commit` (and `emits.commitRun`, whose log lines come last), in the order they are written: a fault injected at one of them
 * fails the commit after the earlier parts were written (inside its transaction) and before this
 * one, which must leave nothing written.
 */
export type FaultPoint = "dedupe" | "events" | "deliveries" | "logs";

/** The parts of a commit, in write order. */
export const FAULT_POINTS: readonly FaultPoint[] = ["dedupe", "events", "deliveries", "logs"];

/**
 * A test hook an adapter calls before writing each part of a commit; it throws to inject a failure
 * there. The memory store takes one as an option; SQL adapters are tested through a client wrapper
 * that throws on the statement writing the part.
 *
 * @example
 * ```ts
 * const store = createMemoryStore({ faults: { before: (point) => { if (point === "deliveries") throw new Error("boom"); } } });
 * ```
 */
export interface FaultHook {
  /** Called before writing `point`; throwing fails the commit there. */
  before(point: FaultPoint): void;
}
