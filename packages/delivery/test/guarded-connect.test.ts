import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import selfsigned from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedConnector } from "../src/guarded-connect.js";

let plain: net.Server;
let secure: tls.Server;
let starttls: net.Server;
let ports = { plain: 0, secure: 0, starttls: 0 };
let ca = "";

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const pems = await selfsigned.generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }] }],
  });
  ca = pems.cert;
  const cert = { key: pems.private, cert: pems.cert };
  plain = net.createServer((socket) => socket.end("plain"));
  secure = tls.createServer(cert, (socket) => socket.end(`secure:${socket.servername}`));
  starttls = net.createServer((socket) => {
    const secured = new tls.TLSSocket(socket, { isServer: true, ...cert });
    secured.end("upgraded");
    secured.on("error", () => {});
  });
  ports = { plain: await listen(plain), secure: await listen(secure), starttls: await listen(starttls) };
});
afterAll(() => {
  for (const server of [plain, secure, starttls]) server.close();
});

function read(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("createGuardedConnector", () => {
  it("refuses a literal loopback address and a name resolving to one, before connecting", async () => {
    const connector = createGuardedConnector();
    await expect(connector.connect({ host: "127.0.0.1", port: ports.plain })).rejects.toMatchObject({
      code: "ssrf_blocked",
      reason: "private_address",
      address: "127.0.0.1",
    });
    await expect(connector.connect({ host: "localhost", port: ports.plain })).rejects.toMatchObject({
      code: "ssrf_blocked",
    });
    await expect(connector.lookup("localhost")).rejects.toMatchObject({ code: "ssrf_blocked" });
    await expect(connector.lookup("169.254.169.254")).rejects.toMatchObject({ code: "ssrf_blocked" });
  });

  it("connects where the allow-list lets it (what pd serve --dev allows)", async () => {
    const connector = createGuardedConnector({ allowList: ["127.0.0.0/8", "::1", "localhost"] });
    expect(await read(await connector.connect({ host: "127.0.0.1", port: ports.plain }))).toBe("plain");
    expect(await read(await connector.connect({ host: "localhost", port: ports.plain, family: 4 }))).toBe(
      "plain",
    );
    expect(await connector.lookup("localhost", { family: 4 })).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });

  it("checks TLS against the given CA, sends SNI, and starts TLS on a connected socket", async () => {
    const connector = createGuardedConnector({ allowPrivate: true });
    const socket = await connector.connect({
      host: "127.0.0.1",
      port: ports.secure,
      tls: { ca, servername: "localhost" },
    });
    expect((socket as tls.TLSSocket).authorized).toBe(true);
    expect(await read(socket)).toBe("secure:localhost");
    await expect(
      connector.connect({ host: "127.0.0.1", port: ports.secure, tls: { servername: "localhost" } }),
    ).rejects.toMatchObject({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
    const raw = await connector.connect({ host: "127.0.0.1", port: ports.starttls });
    const upgraded = await connector.upgrade(raw, { ca, servername: "localhost" });
    expect(await read(upgraded)).toBe("upgraded");
  });
});
