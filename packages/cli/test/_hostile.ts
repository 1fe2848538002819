// The hostile components of issue 15, shared by serve-sandbox-pool.test.ts and bench/hostile.bench.ts:
// each kind's body runs in a source's `run` before it would respond.

/** Code that holds a sandbox, by kind. */
export const HOSTILE = {
  // Uninterruptible: QuickJS's Array.prototype.join over a sparse array never checks the interrupt.
  hang: `new Array(2 ** 32 - 1).join("");`,
  loop: "while (true) {}",
  bomb: "const keep = []; while (true) keep.push({ n: keep.length, s: 'x' + keep.length });",
  deep: "function down(n) { return down(n + 1) + 1; }\n    down(0);",
} as const;

/** One hostile kind. */
export type HostileKind = keyof typeof HOSTILE;

/** A source with a custom HTTP response that runs `body` first (and so never responds). */
export const hostile = (body: string) => `export default {
  name: "Hostile", version: "0.1.0",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    ${body}
    this.http.respond({ status: 200, body: "unreachable" });
  },
};`;

/** A well-behaved source: emits `{ n }` of each request's JSON body, deduplicated by `n`. */
export const FINE = `export default {
  name: "Fine", version: "0.1.0",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ n: event.body.n }, { id: event.body.n }); },
};`;
