// A real runtime wrapped so that tests can see and hold calls into mounted components: how many
// run at once per sandbox id, and a gate that holds every run until the test opens it.
import { createRuntime, type MountedComponent, type Runtime } from "@hookline/runtime";

export interface InstrumentedRuntime {
  runtime: Runtime;
  /** The most calls seen at the same time into the sandboxes of each id. */
  maxConcurrent: Map<string, number>;
  /** Calls into sandboxes started so far, as `id:method`. */
  calls: string[];
  /** Holds every `run` until {@link InstrumentedRuntime.open} (already running ones stay held). */
  close(): void;
  /** Lets held and later runs go. */
  open(): void;
  /** Resolves once `n` runs are held at the gate. */
  held(n: number): Promise<void>;
}

export function instrumentedRuntime(): InstrumentedRuntime {
  const inner = createRuntime();
  const active = new Map<string, number>();
  const maxConcurrent = new Map<string, number>();
  const calls: string[] = [];
  let gate: { promise: Promise<void>; release: () => void } | undefined;
  let waiting = 0;
  const waiters: { n: number; resolve: () => void }[] = [];

  async function track<T>(id: string, method: string, call: () => Promise<T>): Promise<T> {
    calls.push(`${id}:${method}`);
    const now = (active.get(id) ?? 0) + 1;
    active.set(id, now);
    maxConcurrent.set(id, Math.max(maxConcurrent.get(id) ?? 0, now));
    try {
      if (method === "run" && gate) {
        waiting++;
        for (const w of waiters.filter((w) => waiting >= w.n)) w.resolve();
        await gate.promise;
        waiting--;
      }
      // Yield a few turns so that a second caller, if allowed in, would overlap this one.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      return await call();
    } finally {
      active.set(id, (active.get(id) ?? 1) - 1);
    }
  }

  const wrap = (mounted: MountedComponent): MountedComponent => ({
    id: mounted.id,
    description: mounted.description,
    run: (event) => track(mounted.id, "run", () => mounted.run(event)),
    runAction: (steps) => track(mounted.id, "runAction", () => mounted.runAction(steps)),
    hook: (name) => track(mounted.id, name, () => mounted.hook(name)),
    options: (prop, args) => track(mounted.id, "options", () => mounted.options(prop, args)),
    additionalProps: (previous) =>
      track(mounted.id, "additionalProps", () => mounted.additionalProps(previous)),
    memoryUsage: () => mounted.memoryUsage(),
    dispose: () => mounted.dispose(),
  });

  return {
    runtime: {
      load: (input) => inner.load(input),
      mount: async (options) => wrap(await inner.mount(options)),
      close: () => inner.close(),
    },
    maxConcurrent,
    calls,
    close() {
      let release: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => {
        release = resolve;
      });
      gate = { promise, release };
    },
    open() {
      gate?.release();
      gate = undefined;
    },
    held(n) {
      if (waiting >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}
