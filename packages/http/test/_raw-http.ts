/**
 * HTTP/1.1 over one raw TCP socket, as a reverse proxy shares a keep-alive connection between
 * clients: each request is written as given and exactly one response is read back (by its
 * content-length or chunked framing); whatever follows stays in the buffer for the next request.
 */
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawSocket {
  /** Writes `raw` and resolves with the next whole response on the connection. */
  request(raw: string): Promise<RawResponse>;
  /** Bytes received and not yet read as a response. */
  leftover(): string;
  /** Whether the server closed the connection. */
  closed(): boolean;
  close(): void;
}

/** Reads one response from the start of `buffer`: it and its length, or undefined if incomplete. */
function parse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine = "", ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(" ")[1]);
  let at = end + 4;
  if (headers["transfer-encoding"]?.includes("chunked")) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf("\r\n", at);
      if (lineEnd === -1) return undefined;
      const size = Number.parseInt(buffer.subarray(at, lineEnd).toString("latin1"), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
    return { response: { status, headers, body: Buffer.concat(chunks).toString("utf8") }, length: at };
  }
  const size = Number(headers["content-length"] ?? 0);
  if (buffer.length < at + size) return undefined;
  return {
    response: { status, headers, body: buffer.subarray(at, at + size).toString("utf8") },
    length: at + size,
  };
}

/** Opens one connection to `base` (`http://host:port`). */
export async function openSocket(base: string): Promise<RawSocket> {
  const url = new URL(base);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let buffer = Buffer.alloc(0);
  let ended = false;
  let wake = () => {};
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake();
  });
  socket.on("close", () => {
    ended = true;
    wake();
  });
  socket.on("error", () => undefined);
  return {
    async request(raw) {
      socket.write(raw);
      for (;;) {
        const parsed = parse(buffer);
        if (parsed) {
          buffer = buffer.subarray(parsed.length);
          return parsed.response;
        }
        if (ended) throw new Error(`connection closed; received: ${buffer.toString("latin1")}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    leftover: () => buffer.toString("latin1"),
    closed: () => ended,
    close: () => socket.destroy(),
  };
}
