// @ts-check
// The thread that holds PGlite for `openPgliteThread` (pglite-thread.ts): it opens the database and
// answers the messages of the main thread, one reply per message `id`. Plain JavaScript, so that the
// same file runs from the sources and from the build (copied to dist/ next to index.js).
//
//   { id, op: "query", text, params, tx?, begin? }  -> { id, rows }
//       tx: a transaction's number; begin: this statement is the transaction's first (BEGIN first)
//   { id, op: "pipeline", statements, tx?, begin?, commit? }  -> { id, results }  (rows of each)
//       commit: the transaction ends with these statements (COMMIT in the same exchange)
//   { id, op: "commit" | "rollback", tx }   -> { id }         once it has ended
//   { id, op: "listen", channel }           -> { id }; then { notify: channel, payload } per NOTIFY
//   { id, op: "close" }                     -> { id }         PGlite closed; the thread then ends
// A failure answers { id, error: { message, ...fields } } (a Postgres error keeps its `code`).
//
// Statements run as named prepared statements (Postgres's extended protocol, through PGlite's
// public `execProtocolStream`, `protocol.serialize` and `parse.parseResults`): each text is parsed
// and described once, then every run is one Bind/Describe/Execute/Sync exchange, and Postgres may
// keep its plan. PGlite's own `query` sends six exchanges a statement and plans each run: for the
// store's delivery claim, planning took 2-6 ms of a 0.3 ms execution (docs/benchmarks.md).
import { parentPort, workerData } from "node:worker_threads";
import { Mutex, PGlite, parse, protocol } from "@electric-sql/pglite";

const { serialize } = protocol;
const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);
const { dataDir, startParams } = /** @type {{ dataDir?: string, startParams: string[] }} */ (workerData);

/** Prepared statements kept at most; the least recently used is closed past this. */
const MAX_PREPARED = 256;

/** An error as plain data: its message, name and the fields a Postgres error carries. */
function errorData(/** @type {unknown} */ error) {
  if (!(error instanceof Error)) return { message: String(error) };
  /** @type {Record<string, unknown>} */
  const out = { message: error.message, name: error.name };
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === "function" || typeof value === "object") continue;
    out[key] = value;
  }
  return out;
}

/** Resolves once this module has run to its end: PGlite open, every helper defined. */
/** @type {() => void} */
let markReady = () => undefined;
const moduleReady = new Promise((resolve) => {
  markReady = () => resolve(undefined);
});
/** @type {(m: any) => Promise<void>} */
let handle;
// Listening from the start: a first "message" listener added after the long top-level await below
// got its first message about 250 ms late (Node 20; measured on a restart of `pd serve`), which
// delayed every start by that much. Nothing is sent before "ready"; the await is a safeguard.
port.on("message", async (/** @type {any} */ m) => {
  await moduleReady;
  await handle(m);
});

/** @type {PGlite} */
let db;
try {
  db =
    dataDir === undefined
      ? await PGlite.create({ startParams })
      : await PGlite.create(dataDir, { startParams });
} catch (error) {
  port.postMessage({ ready: false, error: errorData(error) });
  process.exit(1);
}

/** One buffer of several protocol messages, sent to PGlite in one call. */
function concat(/** @type {Uint8Array[]} */ parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// One protocol exchange at a time: PGlite's call is not reentrant.
let lane = Promise.resolve();
/** Runs `fn` after every exchange asked for before it. @template T */
function inLane(/** @type {() => Promise<T>} */ fn) {
  const result = lane.then(fn);
  lane = result.then(
    () => undefined,
    () => undefined,
  );
  return result;
}

/** Sends protocol messages and returns PGlite's parsed backend messages (throws a Postgres error). */
const exchange = (/** @type {Uint8Array[]} */ parts) =>
  inLane(() => db.execProtocolStream(concat(parts), { syncToFs: false }));

/** @type {Map<string, { name: string, types: number[] }>} text -> prepared statement */
const prepared = new Map();
let nextName = 1;

/** The prepared statement of `text`, parsed and described on first use. */
async function statement(/** @type {string} */ text) {
  const known = prepared.get(text);
  if (known) {
    // Most recently used last (the Map keeps insertion order).
    prepared.delete(text);
    prepared.set(text, known);
    return known;
  }
  const name = `hl_${nextName++}`;
  const messages = await exchange([
    serialize.parse({ name, text }),
    serialize.describe({ type: "S", name }),
    serialize.sync(),
  ]);
  const description = /** @type {any} */ (messages.find((m) => m.name === "parameterDescription"));
  const entry = { name, types: /** @type {number[]} */ (description?.dataTypeIDs ?? []) };
  prepared.set(text, entry);
  if (prepared.size > MAX_PREPARED) {
    const [oldText, old] = /** @type {[string, { name: string }]} */ (prepared.entries().next().value);
    prepared.delete(oldText);
    await exchange([serialize.close({ type: "S", name: old.name }), serialize.sync()]).catch(() => undefined);
  }
  return entry;
}

/** A parameter as Postgres text, through PGlite's serializer for its type (as `query` does). */
function paramText(/** @type {unknown} */ value, /** @type {number | undefined} */ type) {
  if (value === null || value === undefined) return null;
  const serializers = /** @type {Record<number, (v: unknown) => string>} */ (db.serializers);
  const serializer = type === undefined ? undefined : serializers[type];
  return serializer ? serializer(value) : String(value);
}

/** Runs one statement with positional parameters; returns its rows. */
async function run(/** @type {string} */ text, /** @type {unknown[]} */ params = [], retried = false) {
  const { name, types } = await statement(text);
  const values = params.map((value, i) => paramText(value, types[i]));
  try {
    const messages = await exchange([
      serialize.bind({ statement: name, values }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    return parse.parseResults(messages, db.parsers)[0]?.rows ?? [];
  } catch (error) {
    // A table changed under a kept statement ("cached plan must not change result type"):
    // prepare it again, once.
    if (!retried && /** @type {{ code?: string }} */ (error).code === "0A000") {
      prepared.delete(text);
      await exchange([serialize.close({ type: "S", name }), serialize.sync()]).catch(() => undefined);
      return run(text, params, true);
    }
    throw error;
  }
}

/**
 * Runs statements in order in one PGlite call (every Bind/Execute, then one Sync): the rows of
 * each. On the first failure Postgres skips the rest and the call throws; outside a transaction the
 * statements form one implicit transaction, as the extended protocol makes them.
 */
async function runPipeline(/** @type {{ text: string, params?: unknown[] }[]} */ statements) {
  const kept = [];
  for (const { text } of statements) kept.push(await statement(text));
  /** @type {Uint8Array[]} */
  const parts = [];
  statements.forEach(({ params = [] }, i) => {
    const { name, types } = /** @type {{ name: string, types: number[] }} */ (kept[i]);
    const values = params.map((value, j) => paramText(value, types[j]));
    parts.push(
      serialize.bind({ statement: name, values }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
    );
  });
  parts.push(serialize.sync());
  try {
    const results = parse.parseResults(await exchange(parts), db.parsers);
    return statements.map((_, i) => results[i]?.rows ?? []);
  } catch (error) {
    // A table changed under a kept statement: run them one by one (each prepared again once).
    if (/** @type {{ code?: string }} */ (error).code !== "0A000") throw error;
    const rows = [];
    for (const { text, params } of statements) rows.push(await run(text, params));
    return rows;
  }
}

/** Runs a statement without parameters through the simple protocol (BEGIN, COMMIT, ROLLBACK). */
async function simple(/** @type {string} */ text) {
  const messages = await exchange([serialize.query(text)]);
  return /** @type {any} */ (messages.find((m) => m.name === "commandComplete"))?.text;
}

// A transaction holds the database from BEGIN to its end: statements of no transaction wait.
const transactions = new Mutex();
/** @type {Map<number, () => void>} tx -> release of the transaction lock */
const open = new Map();
/** @type {Map<number, Promise<void>>} tx -> its BEGIN */
const starting = new Map();

/** Begins transaction `tx` once every statement and transaction before it has ended. */
async function begin(/** @type {number} */ tx) {
  const release = await transactions.acquire();
  try {
    await simple("BEGIN");
  } catch (error) {
    release();
    throw error;
  }
  open.set(tx, release);
}

/** Commits (or rolls back) transaction `tx` and frees the database for the next. */
async function end(/** @type {number} */ tx, /** @type {boolean} */ commit) {
  await starting.get(tx)?.catch(() => undefined);
  starting.delete(tx);
  const release = open.get(tx);
  if (!release) throw new Error(`transaction ${tx} is not open`);
  open.delete(tx);
  try {
    const tag = await simple(commit ? "COMMIT" : "ROLLBACK");
    // COMMIT of a transaction a failed statement aborted rolls back instead.
    if (commit && tag === "ROLLBACK") {
      throw Object.assign(new Error("The transaction was aborted and rolled back"), { code: "25P02" });
    }
  } finally {
    release();
  }
}

/** The reply to message `id`. */
const reply = (/** @type {number} */ id, /** @type {object} */ body = {}) =>
  port.postMessage({ id, ...body });

handle = async (/** @type {any} */ m) => {
  try {
    switch (m.op) {
      case "query": {
        // The first statement of a transaction begins it (one exchange less per transaction); its
        // other statements, even sent at once, wait for that.
        if (m.begin) starting.set(m.tx, begin(m.tx));
        if (m.tx !== undefined) await starting.get(m.tx);
        if (m.tx !== undefined && !open.has(m.tx)) throw new Error(`transaction ${m.tx} is not open`);
        const rows =
          m.tx === undefined
            ? await transactions.runExclusive(() => run(m.text, m.params))
            : await run(m.text, m.params);
        reply(m.id, { rows });
        return;
      }
      case "pipeline": {
        if (m.begin) starting.set(m.tx, begin(m.tx));
        if (m.tx !== undefined) await starting.get(m.tx);
        if (m.tx !== undefined && !open.has(m.tx)) throw new Error(`transaction ${m.tx} is not open`);
        if (m.tx === undefined) {
          reply(m.id, { results: await transactions.runExclusive(() => runPipeline(m.statements)) });
          return;
        }
        let results;
        try {
          results = await runPipeline(m.statements);
        } catch (error) {
          // The transaction asked to end with these statements ends here, rolled back.
          if (m.commit) await end(m.tx, false);
          throw error;
        }
        if (m.commit) {
          // A failed COMMIT's outcome is unknown: said so, for the caller not to write it again.
          await end(m.tx, true).catch((error) => {
            throw Object.assign(error, { commitFailed: true });
          });
        }
        reply(m.id, { results });
        return;
      }
      case "commit":
      case "rollback": {
        await end(m.tx, m.op === "commit");
        reply(m.id);
        return;
      }
      case "listen": {
        await transactions.runExclusive(() =>
          inLane(() => db.listen(m.channel, (payload) => port.postMessage({ notify: m.channel, payload }))),
        );
        reply(m.id);
        return;
      }
      case "close": {
        await transactions.runExclusive(() => inLane(() => db.close()));
        reply(m.id);
        port.close();
        return;
      }
      default:
        throw new Error(`unknown operation ${m.op}`);
    }
  } catch (error) {
    reply(m.id, { error: errorData(error) });
  }
};

markReady();
port.postMessage({ ready: true });
