#!/usr/bin/env node
/**
 * npm run mutants [-- <filter>...]: a small mutation harness. Each rule below names a production
 * file, the exact text of one rule in it, a one-line change that breaks the rule (the mutant), and
 * the test files that must catch it. For each mutant alone: the file is changed, the named tests run
 * (`vitest run`), the file is restored; the mutant is killed when the tests fail. The named tests
 * are part of `npm test`, so a killed mutant fails `npm test` too.
 *
 * Prints one line per mutant and a table; exits 1 when a mutant survived, or when its text is no
 * longer in its file (the rule moved: update the entry). With filters, runs only the rules whose
 * id contains one of them. `--baseline` first runs each rule's tests unchanged (they must pass).
 * Slow (one vitest run per mutant): not part of CI.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/**
 * @typedef {object} Mutant
 * @property {string} id - Short name, for filters and the table.
 * @property {string} rule - The rule the mutant breaks, in words.
 * @property {string} file - The production file, from the repository root.
 * @property {string} find - The exact text of the rule (it must occur once in the file).
 * @property {string} replace - What it becomes.
 * @property {string[]} tests - `project:path` of the test files that must fail.
 * @property {string} [grep] - Only the tests whose name matches (vitest `-t`), to keep it quick.
 */

/** @type {Mutant[]} */
export const MUTANTS = [
  // ---- the eight mutants of issue 33 that survived ----
  {
    id: "filter-depth",
    rule: "a filter nests at most 8 levels",
    file: "packages/core/src/event-filter.ts",
    find: "const MAX_DEPTH = 8;",
    replace: "const MAX_DEPTH = 800;",
    tests: ["core:test/event-filter.test.ts"],
  },
  {
    id: "filter-own-props",
    rule: "a filter path reads own properties only (as SQL's JSON does)",
    file: "packages/core/src/event-filter.ts",
    find: "else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment];",
    replace: "else if (isObject(current) && segment in current) current = current[segment];",
    tests: ["core:test/event-filter.test.ts"],
  },
  {
    id: "window-until",
    rule: "a search window excludes its `until`",
    file: "packages/store/src/adapter/event-match.ts",
    find: "event.createdAt >= options.until",
    replace: "event.createdAt > options.until",
    tests: ["store:test/memory.test.ts"],
    grep: "event search",
  },
  {
    id: "send-http-ssrf",
    rule: "$.send.http goes through the SSRF guard unless allowPrivateUrls",
    file: "packages/engine/src/hookline.ts",
    find: "...(options.allowPrivateUrls ? { allowPrivate: true } : {}),",
    replace: "allowPrivate: true,",
    tests: ["engine:test/workflows/send-external.test.ts"],
  },
  {
    id: "retry-interrupted",
    rule: "interrupted tries do not count against a step's retry policy",
    file: "packages/engine/src/workflows/durable.ts",
    find: 'return (record.attemptErrors ?? []).filter((e) => e.code !== "interrupted").length;',
    replace: "return (record.attemptErrors ?? []).length;",
    tests: ["engine:test/workflows/runner.test.ts"],
  },
  {
    id: "execution-of-workflow",
    rule: "an execution is found only under its own workflow",
    file: "packages/engine/src/workflows/api.ts",
    find: "if (!exe || exe.workflowId !== id) {",
    replace: "if (!exe) {",
    tests: ["engine:test/workflows/runner.test.ts"],
  },
  {
    id: "retention-paused-sql",
    rule: "retention keeps an event whose delivery waits paused (SQL)",
    file: "packages/store-sql/src/sql/events.ts",
    find: "AND d.state IN ('pending', 'paused', 'delivering'))",
    replace: "AND d.state IN ('pending', 'delivering'))",
    tests: ["store-sql:test/pglite.test.ts"],
    grep: "trim keeps",
  },
  {
    id: "retention-paused-memory",
    rule: "retention keeps an event whose delivery waits paused (memory)",
    file: "packages/store/src/memory/events.ts",
    find: "const waiting = new Set(s.openRows().map((delivery) => delivery.eventId));",
    replace:
      'const waiting = new Set(s.openRows().filter((d) => d.state !== "paused").map((delivery) => delivery.eventId));',
    tests: ["store:test/memory.test.ts"],
    grep: "trim keeps",
  },
  {
    id: "circuit-open-ignores",
    rule: "an attempt that ends while its webhook's circuit is open changes nothing",
    file: "packages/delivery/src/_circuit.ts",
    find: "if (circuit.openUntil !== undefined && circuit.openUntil > now) return undefined;",
    replace: "",
    tests: ["delivery:test/worker-fairness.test.ts"],
  },
  // ---- rules issue 33 fixed (SPEC deviations and the fuzz test's finds) ----
  {
    id: "params-compare-text",
    rule: "a field in both the query and the body is compared without calling the body value's methods",
    file: "packages/http/src/_params.ts",
    find: "if (comparable(body[key]) !== comparable(value)) {",
    replace: "if (String(body[key]) !== String(value)) {",
    tests: ["http:test/fuzz.test.ts"],
    grep: "own toString",
  },
  {
    id: "retry-policy-own-keys",
    rule: "a retry policy's fields are its own keys (toString is not one)",
    file: "packages/core/src/workflow-retry.ts",
    find: "const limit = Object.hasOwn(LIMITS, key) ? LIMITS[key as keyof RetryPolicy] : undefined;",
    replace: "const limit = LIMITS[key as keyof RetryPolicy];",
    tests: ["core:test/workflows.test.ts"],
  },
  {
    id: "sql-filter-columns",
    rule: "a filter path names a metadata column only when it is one (valueOf is not)",
    file: "packages/store-sql/src/sql/event-filter-sql.ts",
    find: 'const column = NUMBER_COLUMNS.get(c.path.join("."));',
    replace:
      'const column = ({ "metadata.ts": "t.ts", indexed_at_ms: "t.created_at" } as Record<string, string>)[c.path.join(".")];',
    tests: ["store-sql:test/pglite.test.ts"],
    grep: "event search",
  },
  {
    id: "options-reserved-paging",
    rule: "page and prevContext are the caller's, whatever inputValues return",
    file: "packages/runtime/src/sandbox/guest/prop-options.js",
    find: "pd.options.call(appThis, Object.assign({}, extra, base))",
    replace: "pd.options.call(appThis, Object.assign(base, extra))",
    tests: ["http:test/options-args.test.ts"],
  },
  {
    id: "options-use-query",
    rule: "query reaches an options method only with useQuery",
    file: "packages/runtime/src/sandbox/guest/prop-options.js",
    find: "if (arg.query !== undefined && useQuery) base.query = arg.query;",
    replace: "if (arg.query !== undefined) base.query = arg.query;",
    tests: ["http:test/options-args.test.ts"],
  },
  {
    id: "private-version-free",
    rule: "a private component's version is free form; the public registry's semantic",
    file: "packages/core/src/registry-rules.ts",
    find: 'if (visibility === "public" && typeof def.version === "string" && !SEMVER.test(def.version)) {',
    replace: 'if (typeof def.version === "string" && !SEMVER.test(def.version)) {',
    tests: ["core:test/component-rules.test.ts"],
  },
  {
    id: "public-version-semver",
    rule: "the public registry refuses a version that is not semantic",
    file: "packages/core/src/registry-rules.ts",
    find: 'if (visibility === "public" && typeof def.version === "string" && !SEMVER.test(def.version)) {',
    replace:
      'if (visibility === "private" && typeof def.version === "string" && !SEMVER.test(def.version)) {',
    tests: ["core:test/component-rules.test.ts"],
  },
  // ---- other recent rules of value ----
  {
    id: "ssrf-embedded-v4",
    rule: "the SSRF guard refuses an IPv6 address that embeds a private IPv4 one (::ffff:127.0.0.1, 6to4)",
    file: "packages/delivery/src/ssrf.ts",
    find: "return v4 !== undefined && isPrivateParsed(v4);",
    replace: "return false;",
    tests: ["delivery:test/ssrf.test.ts"],
  },
  {
    id: "ssrf-every-address",
    rule: "the SSRF guard refuses a hostname when any of its addresses is private",
    file: "packages/delivery/src/ssrf.ts",
    find: "const blocked = addresses.find((entry) => !isAddressAllowed(guard, entry.address));",
    replace:
      "const blocked = addresses.slice(0, 1).find((entry) => !isAddressAllowed(guard, entry.address));",
    tests: ["delivery:test/ssrf-lookup.test.ts"],
  },
  {
    id: "dedupe-unique-100",
    rule: "dedupe unique remembers the last 100 ids, first in first out",
    file: "packages/core/src/dedupe.ts",
    find: "while (cache.length > UNIQUE_CACHE_SIZE) seen.delete(cache.shift() as string);",
    replace: "while (cache.length > UNIQUE_CACHE_SIZE + 1) seen.delete(cache.shift() as string);",
    tests: ["core:test/dedupe.test.ts"],
  },
  {
    id: "dedupe-greatest-strict",
    rule: "dedupe greatest emits only an id larger than every earlier one",
    file: "packages/core/src/dedupe.ts",
    find: "if (greatest === undefined || value > greatest) {",
    replace: "if (greatest === undefined || value >= greatest) {",
    tests: ["core:test/dedupe.test.ts"],
  },
  {
    id: "signature-tolerance",
    rule: "a signature older than the tolerance (5 minutes) is refused",
    file: "packages/delivery/src/signature.ts",
    find: "if (timestamp < nowSeconds - tolerance) {",
    replace: "if (timestamp < nowSeconds - tolerance * 2) {",
    tests: ["delivery:test/signature.test.ts"],
  },
  {
    id: "signature-content",
    rule: "the signed content is id.timestamp.body (Standard Webhooks)",
    file: "packages/delivery/src/signature.ts",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    find: "hmac.update(`${msgId}.${timestamp}.`);",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the same, one dot less
    replace: "hmac.update(`${msgId}.${timestamp}`);",
    tests: ["delivery:test/signature.test.ts"],
  },
  {
    id: "retry-410-disables",
    rule: "a 410 disables the webhook instead of retrying",
    file: "packages/delivery/src/retry-schedule.ts",
    find: 'if (status === 410) return "disable";',
    replace: 'if (status === 404) return "disable";',
    tests: ["delivery:test/retry-schedule.test.ts"],
  },
  {
    id: "tenancy-delivery-get",
    rule: "a delivery is read only in its own workspace (memory store)",
    file: "packages/store/src/memory/deliveries.ts",
    find: "const row = inWorkspace(s.deliveries.get(id), workspaceId);\n      if (!row) return undefined;",
    replace: "const row = s.deliveries.get(id);\n      if (!row) return undefined;",
    tests: ["store:test/memory.test.ts"],
    grep: "another workspace",
  },
  {
    id: "tenancy-registry-key",
    rule: "a public registry key belongs to the workspace that published it first",
    file: "packages/engine/src/registry.ts",
    find: "if (owner && owner.workspaceId !== workspaceId) {",
    replace: "if (owner && owner.workspaceId === undefined) {",
    tests: ["engine:test/registry.test.ts"],
  },
  // ---- issue 31: managed authentication ----
  {
    id: "oauth-state-once",
    rule: "an OAuth state is taken once: a replayed callback is refused",
    file: "packages/engine/src/oauth/connect.ts",
    find: "const taken = busy ? await store.authTickets.take(TICKET.state, key) : undefined;",
    replace: "const taken = found;",
    tests: ["http:test/oauth-connect.test.ts"],
    grep: "tampered state",
  },
  {
    id: "oauth-end-user-scope",
    rule: "a connect token reaches only its end user's accounts",
    file: "packages/engine/src/accounts.ts",
    find: "if (!account || (scope && account.externalUserId !== scope.externalUserId)) {",
    replace: "if (!account) {",
    tests: ["http:test/oauth-connect-tokens.test.ts"],
  },
  {
    id: "oauth-token-routes",
    rule: "a connect token reaches only the routes declared for it",
    file: "packages/http/src/_connect-auth.ts",
    find: 'if (route.auth !== "connect") {',
    replace: "if (false) {",
    tests: ["http:test/oauth-connect-tokens.test.ts"],
  },
  {
    id: "oauth-cors-api-key",
    rule: "the connect routes answer other origins only for a connect token",
    file: "packages/http/src/_connect-auth.ts",
    find: "if (!preflight && (!key || !isConnectToken(key))) return {};",
    replace: "if (!preflight && !key) return {};",
    tests: ["http:test/oauth-connect-tokens.test.ts"],
  },
  {
    id: "oauth-refresh-lease",
    rule: "one refresh at a time: another owner's unexpired lease is respected",
    file: "packages/store/src/memory/accounts.ts",
    find: "if (lease && lease.owner !== owner && lease.until > now) return undefined;",
    replace: "if (lease && lease.owner === undefined) return undefined;",
    tests: ["e2e:oauth-multinode.test.ts", "store:test/memory.test.ts"],
  },
  {
    id: "oauth-lease-fence",
    rule: "a lease that was taken over cannot write its refresh",
    file: "packages/store-sql/src/sql/accounts.ts",
    find: "WHERE t.workspace_id = $1 AND t.id = $2 AND t.refresh_owner = $3",
    replace: "WHERE t.workspace_id = $1 AND t.id = $2 AND $3::text IS NOT NULL",
    tests: ["store-sql:test/pglite.test.ts"],
    grep: "refresh lease",
  },
  {
    id: "oauth-grant-gone",
    rule: "a refused grant marks the account needs_reconnect",
    file: "packages/engine/src/oauth/refresh.ts",
    find: 'const GRANT_GONE = new Set(["invalid_grant"]);',
    replace: "const GRANT_GONE = new Set<string>([]);",
    tests: ["http:test/oauth-connect.test.ts"],
    grep: "signs in at the provider",
  },
  // ---- issue 30: the store owns the dedupe decision ----
  {
    id: "dedupe-row-locked",
    rule: "an emit commit locks its source's dedupe row and reads its newest state (two nodes emit an id once)",
    file: "packages/store-sql/src/sql/emit-batch.ts",
    find: "ON CONFLICT (component_id) DO UPDATE SET state = dedupe.state",
    replace: "ON CONFLICT (component_id) DO NOTHING",
    tests: ["store-sql:test/pglite.test.ts"],
    grep: "keep each id once",
  },
  {
    id: "dedupe-in-batch-order",
    rule: "a later part of an emitter is decided against the state an earlier part of the same group left",
    file: "packages/store-sql/src/sql/emit-batch.ts",
    find: "    states.set(part.componentId, state);\n",
    replace: "",
    tests: ["store-sql:test/pglite.test.ts"],
    grep: "dedupe|keep each id once",
  },
];

/** `project:path` entries as vitest arguments. */
function vitestArgs(mutant) {
  const projects = new Set();
  const files = [];
  for (const entry of mutant.tests) {
    const [project, path] = entry.split(":");
    projects.add(project);
    files.push(path);
  }
  return [
    "vitest",
    "run",
    ...[...projects].flatMap((p) => ["--project", p]),
    ...files,
    ...(mutant.grep ? ["-t", mutant.grep] : []),
  ];
}

/** Runs the mutant's tests; true when they pass. */
function testsPass(mutant) {
  const result = spawnSync("npx", vitestArgs(mutant), {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "1" },
    timeout: 15 * 60_000,
  });
  return result.status === 0;
}

function main() {
  const args = process.argv.slice(2);
  const baseline = args.includes("--baseline");
  const filters = args.filter((a) => !a.startsWith("--"));
  const chosen = MUTANTS.filter((m) => filters.length === 0 || filters.some((f) => m.id.includes(f)));
  const rows = [];
  let restoring;
  const restore = () => restoring?.();
  process.on("SIGINT", () => {
    restore();
    process.exit(130);
  });
  for (const mutant of chosen) {
    const path = `${root}${mutant.file}`;
    const original = readFileSync(path, "utf8");
    const count = original.split(mutant.find).length - 1;
    if (count !== 1) {
      rows.push({ mutant, outcome: count === 0 ? "stale (text not found)" : `stale (${count} matches)` });
      console.log(`${mutant.id}: its text occurs ${count} times in ${mutant.file}`);
      continue;
    }
    if (baseline && !testsPass(mutant)) {
      rows.push({ mutant, outcome: "tests fail unmutated" });
      console.log(`${mutant.id}: the tests fail without the mutant`);
      continue;
    }
    writeFileSync(path, original.replace(mutant.find, mutant.replace));
    restoring = () => writeFileSync(path, original);
    const started = Date.now();
    let passed;
    try {
      passed = testsPass(mutant);
    } finally {
      restore();
      restoring = undefined;
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    const outcome = passed ? "SURVIVED" : "killed";
    rows.push({ mutant, outcome, seconds });
    console.log(`${mutant.id}: ${outcome} (${seconds} s)`);
  }
  console.log("\n| mutant | rule | file | outcome |\n|---|---|---|---|");
  for (const { mutant, outcome } of rows) {
    console.log(`| ${mutant.id} | ${mutant.rule} | \`${mutant.file}\` | ${outcome} |`);
  }
  const bad = rows.filter((r) => r.outcome !== "killed");
  console.log(`\n${rows.length - bad.length} of ${rows.length} mutants killed`);
  process.exit(bad.length > 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
