/**
 * The QuickJS WebAssembly module, loaded once per process (about 20 ms) and shared by every
 * sandbox. Always the synchronous release build: the asyncify build hangs on an `await` between
 * two host calls and its `dispose` throws (DESIGN.md, "Sandbox").
 */
import { getQuickJS, newQuickJSWASMModule, type QuickJSWASMModule } from "quickjs-emscripten";

let current: Promise<QuickJSWASMModule> | undefined;
let generation = 0;

/**
 * The shared module and its generation. The generation changes when {@link discardModule} threw
 * the module away, so sandboxes built on the old one know to rebuild themselves.
 */
export async function getModule(): Promise<{ module: QuickJSWASMModule; generation: number }> {
  // The first generation is the package's own memoized module; later ones are fresh copies.
  current ??= generation === 0 ? getQuickJS() : newQuickJSWASMModule();
  const gen = generation;
  return { module: await current, generation: gen };
}

/** The current generation, checked by sandboxes before each invocation. */
export function moduleGeneration(): number {
  return generation;
}

/**
 * Forgets the shared module after it aborted (a WebAssembly abort, such as a failed assertion in a
 * `dispose`, leaves the module unusable). The next {@link getModule} loads a fresh one.
 */
export function discardModule(): void {
  current = undefined;
  generation++;
}
