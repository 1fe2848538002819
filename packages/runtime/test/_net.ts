/**
 * Host bridges for the runtime's network tests: `http` and `net` over Node's own modules, with no
 * SSRF guard (the engine passes its guarded transport; test/net-engine tests that path).
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import type { HostBridges, NetSocket } from "../src/index.js";

function ready<T extends NetSocket>(socket: T, event: string): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.once(event, () => {
      socket.off("error", reject);
      resolve(socket);
    });
  });
}

/** `http` and `net` bridges straight to Node (loopback allowed). */
export function loopbackBridges(): Pick<HostBridges, "http" | "net"> {
  return {
    http: (request) =>
      new Promise((resolve, reject) => {
        const url = new URL(request.url);
        const client = url.protocol === "https:" ? https : http;
        const req = client.request(url, {
          method: request.method,
          headers: request.headers,
          ...(request.tls ?? {}),
          timeout: request.timeoutMs,
        });
        req.on("error", reject);
        req.on("timeout", () => req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              statusText: res.statusMessage ?? "",
              httpVersion: res.httpVersion,
              rawHeaders: res.rawHeaders,
              body: body.subarray(0, request.maxResponseBytes).toString("base64"),
              ...(body.length > request.maxResponseBytes ? { truncated: true } : {}),
            });
          });
        });
        req.end(request.body === undefined ? undefined : Buffer.from(request.body, "base64"));
      }),
    net: {
      connect(request) {
        if (request.tls)
          return ready(
            tls.connect({ host: request.host, port: request.port, ...request.tls }),
            "secureConnect",
          );
        return ready(net.connect({ host: request.host, port: request.port }), "connect");
      },
      upgrade(socket, options) {
        const { timeoutMs: _, ...rest } = options;
        return ready(tls.connect({ socket, ...rest }), "secureConnect");
      },
      async lookup(hostname) {
        const dns = await import("node:dns/promises");
        return dns.lookup(hostname, { all: true });
      },
    },
  };
}
