/**
 * A few long-lived esbuild build contexts, reused from one component's build to the next: a
 * context keeps the parsed files of its previous build, so the next build re-parses only what
 * changed (the component), not the megabyte of npm packages it shares with the last one. Each
 * context serves one build at a time; the build's own state (its files, the packages it used)
 * is handed to the context's plugin through a holder. When every context is busy, a build runs
 * on its own as before. An idle context is disposed after a while, so that a process that never
 * closes its runtime is not kept alive by esbuild.
 */
import type { BuildOptions, BuildResult, OutputFile } from "esbuild";

type Esbuild = typeof import("esbuild");
type Built = BuildResult & { outputFiles: OutputFile[] };

/** Where a context's plugin finds the state of the build it is running. */
export interface StateHolder<S> {
  state?: S;
}

interface Slot<S> {
  context: import("esbuild").BuildContext;
  holder: StateHolder<S>;
  timer?: ReturnType<typeof setTimeout>;
}

/** Builds through reusable contexts, one pool per `variant` of the build options. */
export class ContextPool<S> {
  private readonly idle = new Map<string, Slot<S>[]>();
  private live = 0;

  constructor(
    private readonly esbuild: Esbuild,
    /** The build options of a variant, whose plugin reads the build's state from `holder`. */
    private readonly optionsFor: (variant: string, holder: StateHolder<S>) => BuildOptions,
    /** At most this many contexts at once (0: never reuse). */
    private readonly max = 2,
    private readonly idleMs = 2_000,
  ) {}

  /** Runs one build of `variant` with `state`. */
  async build(variant: string, state: S): Promise<Built> {
    const slot = await this.acquire(variant);
    if (!slot) {
      const holder: StateHolder<S> = { state };
      return (await this.esbuild.build({ ...this.optionsFor(variant, holder), write: false })) as Built;
    }
    slot.holder.state = state;
    try {
      return (await slot.context.rebuild()) as Built;
    } finally {
      slot.holder.state = undefined;
      this.release(variant, slot);
    }
  }

  private async acquire(variant: string): Promise<Slot<S> | undefined> {
    const slot = this.idle.get(variant)?.pop();
    if (slot) {
      clearTimeout(slot.timer);
      return slot;
    }
    if (this.live >= this.max) return undefined;
    this.live++;
    const holder: StateHolder<S> = {};
    try {
      const context = await this.esbuild.context({ ...this.optionsFor(variant, holder), write: false });
      return { context, holder };
    } catch (error) {
      this.live--;
      throw error;
    }
  }

  private release(variant: string, slot: Slot<S>): void {
    const list = this.idle.get(variant) ?? [];
    list.push(slot);
    this.idle.set(variant, list);
    slot.timer = setTimeout(() => {
      const at = list.indexOf(slot);
      if (at !== -1) list.splice(at, 1);
      this.dispose(slot);
    }, this.idleMs);
    slot.timer.unref?.();
  }

  private dispose(slot: Slot<S>): void {
    this.live--;
    clearTimeout(slot.timer);
    slot.context.dispose().catch(() => {});
  }

  /**
   * Disposes the idle contexts (a busy one goes idle when its build ends, and is disposed after
   * `idleMs`). A later build creates contexts again.
   */
  async close(): Promise<void> {
    for (const list of this.idle.values()) for (const slot of list.splice(0)) this.dispose(slot);
  }
}
