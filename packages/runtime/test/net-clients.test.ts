/**
 * Protocol clients over bridged sockets, unchanged from npm, in both sandbox modes: `pg` against a
 * Postgres wire server on loopback (PGlite's, always; the machine's Postgres too when
 * HOOKLINE_TEST_PG_URL is set), `mysql2` against MariaDB at 127.0.0.1:3306 (root, no password, db
 * `test`), and nodemailer sending through an SMTP server with STARTTLS.
 */
import net, { type AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type InvocationResult, nodeModulesResolver, type Runtime } from "../src/index.js";
import { REPO_ROOT } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";
import { pgliteWireServer, selfSignedCert } from "./_servers.js";

const PG_COMPONENT = `import pg from "pg";
export default { name: "pg", version: "0.1.0", props: {}, async run(event) {
  const client = new pg.Client({ connectionString: event.url });
  await client.connect();
  const table = "hookline_net_" + event.suffix;
  await client.query("CREATE TABLE " + table + " (id serial PRIMARY KEY, name text, tags jsonb)");
  await client.query("INSERT INTO " + table + " (name, tags) VALUES ($1, $2), ($3, $4)", ["ada", { a: 1 }, "grace", { b: [2] }]);
  const { rows } = await client.query("SELECT id, name, tags FROM " + table + " WHERE name <> $1 OR id = $2 ORDER BY id", ["nobody", 1]);
  const pool = new pg.Pool({ connectionString: event.url, max: 2 });
  const counts = await Promise.all([1, 2, 3].map(() => pool.query("SELECT count(*)::int AS n FROM " + table)));
  await pool.end();
  await client.query("DROP TABLE " + table);
  await client.end();
  this.$emit({ rows, counts: counts.map((r) => r.rows[0].n) });
} }`;

const MYSQL_COMPONENT = `import mysql from "mysql2/promise";
export default { name: "mysql", version: "0.1.0", props: {}, async run(event) {
  const conn = await mysql.createConnection({ host: "127.0.0.1", port: 3306, user: "root", password: "", database: "test" });
  const table = "hookline_net_" + event.suffix;
  await conn.query("CREATE TABLE " + table + " (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), at DATETIME)");
  await conn.execute("INSERT INTO " + table + " (name, at) VALUES (?, ?), (?, ?)", ["ada", new Date(Date.UTC(2026, 0, 2)), "grace", null]);
  const [rows] = await conn.execute("SELECT id, name FROM " + table + " WHERE id > ? ORDER BY id", [0]);
  const [[version]] = await conn.query("SELECT VERSION() AS v");
  await conn.query("DROP TABLE " + table);
  await conn.end();
  this.$emit({ rows, mariadb: /mariadb/i.test(version.v) });
} }`;

const PG_ROWS = [
  { id: 1, name: "ada", tags: { a: 1 } },
  { id: 2, name: "grace", tags: { b: [2] } },
];

/** Whether something listens on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const MAIL_COMPONENT = `import nodemailer from "nodemailer";
export default { name: "mail", version: "0.1.0", props: {}, async run(event) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: event.port, secure: false, requireTLS: true,
    tls: { ca: event.ca, servername: "localhost" } });
  const info = await transport.sendMail({ from: "ada@example.com", to: "grace@example.com", subject: "Hello " + event.suffix, text: "Sent from the sandbox" });
  this.$emit({ accepted: info.accepted, response: info.response });
} }`;

let pglite: Awaited<ReturnType<typeof pgliteWireServer>>;
let smtp: SMTPServer;
let smtpPort = 0;
let ca = "";
const mails: { secure: boolean; from: string | false; to: string[]; data: string }[] = [];
let hasMariaDb = false;
const runtimes: Record<"thread" | "pool", Runtime> = {} as never;
const bundles = new Map<string, ReturnType<Runtime["load"]>>();
beforeAll(async () => {
  pglite = await pgliteWireServer();
  const cert = await selfSignedCert();
  ca = cert.cert;
  smtp = new SMTPServer({
    ...cert,
    authOptional: true,
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (chunk) => (data += chunk));
      stream.on("end", () => {
        const { mailFrom, rcptTo } = session.envelope;
        mails.push({
          secure: session.secure,
          from: mailFrom ? mailFrom.address : false,
          to: rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  hasMariaDb = await listening(3306);
  if (!hasMariaDb) console.warn("SKIPPED: no MariaDB at 127.0.0.1:3306, the mysql2 tests do not run");
  for (const mode of ["thread", "pool"] as const)
    runtimes[mode] = createRuntime({ resolvers: [nodeModulesResolver(REPO_ROOT)], mode, pool: { size: 1 } });
});
afterAll(async () => {
  await Promise.all(Object.values(runtimes).map((r) => r.close()));
  await pglite.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

async function run(
  mode: "thread" | "pool",
  code: string,
  event: Record<string, unknown>,
): Promise<InvocationResult> {
  const runtime = runtimes[mode];
  // Bundled once for both modes.
  let loaded = bundles.get(code);
  if (!loaded) {
    loaded = runtimes.thread.load({ code, filename: "db.mjs" });
    bundles.set(code, loaded);
  }
  const { bundle, description } = await loaded;
  const mounted = await runtime.mount({
    id: "dc_db",
    bundle,
    description,
    props: {},
    bridges: loopbackBridges(),
  });
  try {
    return await mounted.run({ suffix: `${mode}_${process.pid}_${Date.now() % 100000}`, ...event });
  } finally {
    mounted.dispose();
  }
}

describe.each(["thread", "pool"] as const)("in %s mode", (mode) => {
  it("pg talks to PGlite's wire server: queries, parameters, JSON, a pool", async () => {
    const result = await run(mode, PG_COMPONENT, {
      url: `postgres://postgres@127.0.0.1:${pglite.port}/postgres`,
    });
    expect(result.error).toBeUndefined();
    expect(result.emits[0]?.event).toEqual({ rows: PG_ROWS, counts: [2, 2, 2] });
  });

  it.runIf(process.env.HOOKLINE_TEST_PG_URL)("pg talks to Postgres (HOOKLINE_TEST_PG_URL)", async () => {
    const result = await run(mode, PG_COMPONENT, { url: process.env.HOOKLINE_TEST_PG_URL });
    expect(result.error).toBeUndefined();
    expect(result.emits[0]?.event).toEqual({ rows: PG_ROWS, counts: [2, 2, 2] });
  });

  it("mysql2 talks to MariaDB: queries, prepared statements, dates", async (ctx) => {
    if (!hasMariaDb) ctx.skip();
    const result = await run(mode, MYSQL_COMPONENT, {});
    expect(result.error).toBeUndefined();
    expect(result.emits[0]?.event).toEqual({
      rows: [
        { id: 1, name: "ada" },
        { id: 2, name: "grace" },
      ],
      mariadb: true,
    });
  });

  it("nodemailer sends through SMTP after STARTTLS", async () => {
    const result = await run(mode, MAIL_COMPONENT, { port: smtpPort, ca });
    expect(result.error).toBeUndefined();
    expect(result.emits[0]?.event).toEqual({
      accepted: ["grace@example.com"],
      response: "250 OK: message queued",
    });
    const mail = mails.at(-1);
    expect(mail).toMatchObject({ secure: true, from: "ada@example.com", to: ["grace@example.com"] });
    expect(mail?.data).toMatch(new RegExp(`^Subject: Hello ${mode}_`, "m"));
    expect(mail?.data).toContain("Sent from the sandbox");
  });
});
