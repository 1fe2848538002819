/**
 * One call at a time into a mounted component, in call order: the one queue of both sandbox modes
 * (runtime.ts in process, pool/remote-mount.ts in a pool thread).
 */

/** Runs each task after the one before has settled (a failed task does not stop the queue). */
export type CallQueue = <T>(task: () => Promise<T>) => Promise<T>;

/** A new, empty {@link CallQueue}. */
export function createCallQueue(): CallQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}
