/**
 * Loopback servers for the network tests: an HTTP(S) server that records what it receives, a
 * self-signed certificate made for the test run, and a Postgres wire server over PGlite.
 */
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import selfsigned from "selfsigned";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";

/** A request as the server received it. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A listening loopback server, what it received, and how to close it. */
export interface TestServer {
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

type Handler = (req: Seen, res: http.ServerResponse) => void;

const json: Handler = (req, res) => {
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ id: "obj_1", method: req.method, url: req.url }));
};

/** An HTTP (or, with `tls`, HTTPS) server on 127.0.0.1 answering with `handler` (JSON echo by default). */
export async function recordingServer(
  handler: Handler = json,
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const seen: Seen[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(entry);
      handler(entry, res);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let material: Promise<{ key: string; cert: string }> | undefined;
/** A certificate for `localhost` and 127.0.0.1, signed by itself (made once per test file). */
export function selfSignedCert(): Promise<{ key: string; cert: string }> {
  material ??= selfsigned
    .generate([{ name: "commonName", value: "localhost" }], {
      keyType: "ec",
      algorithm: "sha256",
      extensions: [
        { name: "basicConstraints", cA: true },
        {
          name: "subjectAltName",
          altNames: [
            { type: 2, value: "localhost" },
            { type: 7, ip: "127.0.0.1" },
          ],
        },
      ],
    })
    .then((pems) => ({ key: pems.private, cert: pems.cert }));
  return material;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;

/**
 * A Postgres wire server on 127.0.0.1 over an in-memory PGlite: each complete protocol message
 * goes to PGlite (one at a time) and its answer back; SSL is refused ('N'), as a server without
 * certificates does. Enough for `pg`'s simple and extended queries.
 */
export async function pgliteWireServer(): Promise<{ port: number; close(): Promise<void> }> {
  const db = await freshPglite();
  let queue = Promise.resolve();
  const server = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on("data", (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readInt32BE(0);
          const code = buffered.readInt32BE(4);
          if (buffered.length < length) return;
          const message = buffered.subarray(0, length);
          buffered = buffered.subarray(length);
          if (code === SSL_REQUEST) {
            socket.write("N");
            continue;
          }
          if (code === CANCEL_REQUEST) continue;
          started = true;
          enqueue(message);
          continue;
        }
        if (buffered.length < 5) return;
        const length = buffered.readInt32BE(1) + 1;
        if (buffered.length < length) return;
        const message = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        if (message[0] === 0x58) {
          socket.end();
          return;
        }
        enqueue(message);
      }
    });
    socket.on("error", () => {});
    function enqueue(message: Buffer): void {
      queue = queue.then(async () => {
        const answer = await db.execProtocolRaw(new Uint8Array(message));
        if (!socket.destroyed) socket.write(answer);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
