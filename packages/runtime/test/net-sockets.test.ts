/**
 * `net` and `tls` sockets in the sandbox, bridged to host sockets: streams in both directions,
 * TLS with a test certificate (SNI, `ca`, STARTTLS), sockets kept across invocations, the caps
 * and the idle timeout, closing on unmount and on a new sandbox, and the pool's relay. Database
 * clients (`pg`, `mysql2`) are in net-databases.test.ts.
 */
import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type InvocationResult, nodeModulesResolver, type Runtime } from "../src/index.js";
import { REPO_ROOT, testRuntime } from "./_helpers.js";
import { loopbackBridges } from "./_net.js";
import { selfSignedCert } from "./_servers.js";

interface Listening {
  port: number;
  closes: number;
  servernames: (string | false)[];
  close(): Promise<void>;
}

/** A TCP (or TLS) server on 127.0.0.1 that runs `onSocket` for each connection and counts closes. */
async function listen(
  onSocket: (socket: net.Socket) => void,
  tlsOptions?: tls.TlsOptions,
): Promise<Listening> {
  const state = { closes: 0, servernames: [] as (string | false)[] };
  const sockets = new Set<net.Socket>();
  const handle = (socket: net.Socket) => {
    sockets.add(socket);
    if (socket instanceof tls.TLSSocket) state.servernames.push(socket.servername ?? false);
    socket.on("close", () => {
      state.closes++;
      sockets.delete(socket);
    });
    socket.on("error", () => {});
    onSocket(socket);
  };
  const server = tlsOptions ? tls.createServer(tlsOptions, handle) : net.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get closes() {
      return state.closes;
    },
    servernames: state.servernames,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const echo = (socket: net.Socket) => socket.pipe(socket);

let runtime: Runtime;
let plain: Listening;
let secure: Listening;
let starttls: Listening;
let ca = "";
beforeAll(async () => {
  runtime = testRuntime();
  const cert = await selfSignedCert();
  ca = cert.cert;
  plain = await listen(echo);
  secure = await listen(echo, cert);
  // A line protocol that switches to TLS on request, as Postgres, MySQL and SMTP servers do.
  starttls = await listen((socket) => {
    socket.once("data", (line) => {
      if (String(line) !== "STARTTLS\n") return socket.end("NO\n");
      socket.write("GO\n");
      const secured = new tls.TLSSocket(socket, { isServer: true, ...cert });
      secured.on("data", (data) => secured.write(`tls:${data}`));
      secured.on("error", () => {});
    });
  });
});
afterAll(async () => {
  await runtime.close();
  await Promise.all([plain.close(), secure.close(), starttls.close()]);
});

const HEADER = `import net from "node:net"; import tls from "tls"; import dns from "dns";
function readUntil(socket, n) { return new Promise((resolve, reject) => { let got = "";
  const onData = (d) => { got += d; if (got.length >= n) { socket.off("data", onData); resolve(got); } };
  socket.on("data", onData); socket.once("error", reject); }); }`;

function component(body: string): string {
  return `${HEADER}\nexport default { name: "sockets", version: "0.1.0", props: {}, async run(event) {\n${body}\n} }`;
}

async function mount(body: string, limits = {}, on: Runtime = runtime) {
  const loaded = await on.load({ code: component(body), filename: "sockets.mjs" });
  return on.mount({ id: "dc_sockets", bundle: loaded.bundle, props: {}, bridges: loopbackBridges(), limits });
}

async function runOnce(
  body: string,
  event: Record<string, unknown> = {},
  limits = {},
): Promise<InvocationResult> {
  const mounted = await mount(body, limits);
  try {
    return await mounted.run({
      plain: plain.port,
      secure: secure.port,
      starttls: starttls.port,
      ca,
      ...event,
    });
  } finally {
    mounted.dispose();
  }
}

function emitted(result: InvocationResult): unknown {
  expect(result.error).toBeUndefined();
  return result.emits[0]?.event;
}

describe("net sockets", () => {
  it("connect, write, read, end and close in Node's order", async () => {
    const result = await runOnce(`
      const events = [];
      const socket = net.connect({ port: event.plain, host: "127.0.0.1" });
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 1000);
      socket.on("connect", () => events.push("connect " + socket.remoteAddress + " " + (socket.remotePort === event.plain)));
      socket.setEncoding("utf8");
      socket.write("ping ");
      let text = await readUntil(socket, 5);
      socket.on("data", (d) => { text += d; });
      socket.end("pong");
      await new Promise((resolve) => { socket.on("end", () => events.push("end")); socket.on("close", resolve); });
      events.push("close");
      this.$emit({ events, text, written: socket.bytesWritten, read: socket.bytesRead >= 9, state: socket.readyState });`);
    expect(emitted(result)).toEqual({
      events: ["connect 127.0.0.1 true", "end", "close"],
      text: "ping pong",
      written: 9,
      read: true,
      state: "closed",
    });
  });

  it("reports a refused connection with Node's code", async () => {
    const result = await runOnce(`
      this.$emit(await new Promise((resolve) => net.connect(1, "127.0.0.1").on("error", (e) => resolve(e.code))));`);
    expect(emitted(result)).toBe("ECONNREFUSED");
  });
});

describe("tls sockets with a certificate made for the test", () => {
  it("checks the certificate against `ca`, sends SNI, and refuses an untrusted server", async () => {
    const result = await runOnce(`
      const trusted = tls.connect({ port: event.secure, host: "127.0.0.1", servername: "localhost", ca: event.ca });
      await new Promise((resolve, reject) => { trusted.once("secureConnect", resolve); trusted.once("error", reject); });
      trusted.write("secret");
      const echoed = String(await readUntil(trusted, 6));
      const peer = trusted.getPeerCertificate().subject;
      trusted.destroy();
      const refused = await new Promise((resolve) => tls.connect(event.secure, "localhost").on("error", (e) => resolve(e.code)).on("secureConnect", () => resolve("connected")));
      const unchecked = tls.connect({ port: event.secure, host: "127.0.0.1", rejectUnauthorized: false });
      unchecked.write("u");
      await readUntil(unchecked, 1);
      unchecked.destroy();
      this.$emit({ authorized: trusted.authorized, echoed, cn: peer && peer.CN, refused, uncheckedAuthorized: unchecked.authorized,
        encrypted: trusted.encrypted, protocol: trusted.getProtocol() });`);
    expect(emitted(result)).toEqual({
      authorized: true,
      echoed: "secret",
      cn: "localhost",
      refused: "DEPTH_ZERO_SELF_SIGNED_CERT",
      uncheckedAuthorized: false,
      encrypted: true,
      protocol: "TLSv1.3",
    });
    // The refused handshake never completes on the server; an IP host sends no SNI.
    await expect.poll(() => secure.servernames).toEqual(["localhost", false]);
  });

  it("upgrades a connected socket to TLS (STARTTLS), as pg and mysql2 do", async () => {
    const result = await runOnce(`
      const socket = net.connect(event.starttls, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write("STARTTLS\\n");
      const answer = String(await readUntil(socket, 3));
      const secured = tls.connect({ socket, servername: "localhost", ca: event.ca });
      secured.write("hello");
      await new Promise((resolve) => secured.once("secureConnect", resolve));
      const echoed = String(await readUntil(secured, 9));
      secured.end();
      this.$emit({ answer, echoed, authorized: secured.authorized });`);
    expect(emitted(result)).toEqual({ answer: "GO\n", echoed: "tls:hello", authorized: true });
  });
});

describe("sockets and the component's lifetime", () => {
  it("keeps a socket across invocations; what arrives in between is read by the next", async () => {
    const mounted = await mount(`
      if (event.step === 1) {
        globalThis.kept = net.connect(event.plain, "127.0.0.1");
        globalThis.kept.setEncoding("utf8");
        globalThis.received = "";
        globalThis.kept.on("data", (d) => { globalThis.received += d; });
        await new Promise((resolve) => globalThis.kept.once("connect", resolve));
        globalThis.kept.write("between runs");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      this.$emit(globalThis.received);`);
    try {
      expect((await mounted.run({ step: 1, plain: plain.port })).error).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(emitted(await mounted.run({ step: 2 }))).toBe("between runs");
    } finally {
      mounted.dispose();
    }
  });

  it("closes the component's sockets when it is unmounted", async () => {
    const server = await listen(echo);
    const mounted = await mount(`
      const socket = net.connect(event.plain, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));`);
    try {
      expect((await mounted.run({ plain: server.port })).error).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.closes).toBe(0);
      mounted.dispose();
      await expect.poll(() => server.closes).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("closes the sockets of a sandbox that is replaced", async () => {
    const recycling = createRuntime({ resolvers: [nodeModulesResolver(REPO_ROOT)], recycleAfter: 1 });
    const server = await listen(echo);
    const mounted = await mount(
      `const socket = net.connect(event.plain, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));`,
      {},
      recycling,
    );
    try {
      expect((await mounted.run({ plain: server.port })).error).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.closes).toBe(0);
      // The next invocation gets a new sandbox: the first one's socket goes with the old one.
      expect((await mounted.run({ plain: server.port })).error).toBeUndefined();
      await expect.poll(() => server.closes).toBe(1);
    } finally {
      mounted.dispose();
      await recycling.close();
      await server.close();
    }
  });
});

describe("caps", () => {
  it("refuses a socket past limits.sockets", async () => {
    const result = await runOnce(
      `const first = net.connect(event.plain, "127.0.0.1");
      await new Promise((resolve) => first.once("connect", resolve));
      const second = await new Promise((resolve) => net.connect(event.plain, "127.0.0.1").on("error", (e) => resolve(e.code + ": " + e.message)).on("connect", () => resolve("connected")));
      first.destroy();
      this.$emit(second);`,
      {},
      { sockets: 1 },
    );
    expect(emitted(result)).toBe(
      "ERR_SANDBOX_SOCKET_LIMIT: The component has 1 sockets open, the most it may (limits.sockets)",
    );
  });

  it("refuses a socket past limits.socketsPerInvocation", async () => {
    const result = await runOnce(
      `const codes = [];
      for (let i = 0; i < 3; i++) {
        const socket = net.connect(event.plain, "127.0.0.1");
        codes.push(await new Promise((resolve) => socket.on("error", (e) => resolve(e.code)).on("connect", () => { socket.destroy(); resolve("ok"); })));
      }
      this.$emit(codes);`,
      {},
      { socketsPerInvocation: 2 },
    );
    expect(emitted(result)).toEqual(["ok", "ok", "ERR_SANDBOX_SOCKET_LIMIT"]);
  });

  it("destroys a socket past limits.socketBytes", async () => {
    const result = await runOnce(
      `const socket = net.connect(event.plain, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      const outcome = new Promise((resolve) => socket.on("error", (e) => resolve(e.code + ": " + e.message)));
      socket.write("x".repeat(60));
      this.$emit(await outcome);`,
      {},
      { socketBytes: 100 },
    );
    expect(emitted(result)).toBe(
      "ERR_SANDBOX_SOCKET_LIMIT: The invocation sent and received more than 100 bytes on sockets (limits.socketBytes)",
    );
  });

  it("closes a socket idle past limits.socketIdleMs", async () => {
    const result = await runOnce(
      `const socket = net.connect(event.plain, "127.0.0.1");
      this.$emit(await new Promise((resolve) => socket.on("error", (e) => resolve(e.code))));`,
      {},
      { socketIdleMs: 100 },
    );
    expect(emitted(result)).toBe("ETIMEDOUT");
  });
});

describe("dns", () => {
  it("looks names up on the host; an IP answers itself", async () => {
    const result = await runOnce(`
      const one = await dns.promises.lookup("localhost", { family: 4 });
      const ip = await new Promise((resolve) => dns.lookup("10.1.2.3", (err, address, family) => resolve([address, family])));
      this.$emit({ one, ip });`);
    expect(emitted(result)).toEqual({ one: { address: "127.0.0.1", family: 4 }, ip: ["10.1.2.3", 4] });
  });
});

describe("in the worker-thread pool", () => {
  it("relays sockets to the pool's thread: TLS, STARTTLS and closing on unmount", async () => {
    const pool = createRuntime({
      resolvers: [nodeModulesResolver(REPO_ROOT)],
      mode: "pool",
      pool: { size: 1 },
    });
    const before = starttls.closes;
    try {
      const mounted = await mount(
        `const trusted = tls.connect({ port: event.secure, host: "127.0.0.1", servername: "localhost", ca: event.ca });
        trusted.write("pooled");
        const echoed = String(await readUntil(trusted, 6));
        trusted.end();
        const socket = net.connect(event.starttls, "127.0.0.1");
        socket.write("STARTTLS\\n");
        await readUntil(socket, 3);
        const secured = tls.connect({ socket, servername: "localhost", ca: event.ca });
        secured.write("up");
        this.$emit({ echoed, upgraded: String(await readUntil(secured, 6)) });`,
        {},
        pool,
      );
      const result = await mounted.run({ secure: secure.port, starttls: starttls.port, ca });
      expect(emitted(result)).toEqual({ echoed: "pooled", upgraded: "tls:up" });
      expect(starttls.closes).toBe(before);
      mounted.dispose();
      await expect.poll(() => starttls.closes).toBe(before + 1);
    } finally {
      await pool.close();
    }
  });
});
