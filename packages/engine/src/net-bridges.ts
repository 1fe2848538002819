/**
 * Components' Node networking (`http`/`https`, `net`/`tls`, `dns.lookup`) through the engine's
 * SSRF-guarded transport, as their `fetch` goes (mounts.ts): private and loopback destinations are
 * refused at connect time unless the engine allows them (`allowPrivateUrls`, `--dev`, `allowList`).
 * The runtime applies the caps (sockets, bytes, response size) and timeouts.
 */
import type { Transport } from "@hookline/delivery";
import type { HostBridges, HttpBridgeRequest, HttpBridgeResponse } from "@hookline/runtime";

/** The `http` and `net` bridges over `transport` (`net` only when the transport opens sockets). */
export function netBridges(transport: Transport): Pick<HostBridges, "http" | "net"> {
  return {
    http: httpBridge(transport),
    ...(transport.sockets ? { net: transport.sockets } : {}),
  };
}

/** `http.request()`: one guarded request, answered with Node's view of the response. */
function httpBridge(transport: Transport): NonNullable<HostBridges["http"]> {
  return async (request: HttpBridgeRequest): Promise<HttpBridgeResponse> => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "base64");
    if (transport.request) {
      const res = await transport.request(request.url, {
        method: request.method,
        headers: request.headers,
        ...(body !== undefined ? { body } : {}),
        timeoutMs: request.timeoutMs,
        maxResponseBytes: request.maxResponseBytes,
        ...(request.tls ? { tls: request.tls } : {}),
      });
      return {
        status: res.status,
        statusText: res.statusText,
        httpVersion: res.httpVersion,
        rawHeaders: res.rawHeaders,
        body: res.body.toString("base64"),
        ...(res.truncated ? { truncated: true } : {}),
      };
    }
    // An embedder's transport without `request`: through its fetch (TLS settings cannot apply).
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      headers[name] = Array.isArray(value) ? value.join(", ") : value;
    const res = await transport.fetch(request.url, {
      method: request.method,
      headers,
      signal: AbortSignal.timeout(request.timeoutMs),
      ...(body !== undefined && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const rawHeaders: string[] = [];
    res.headers.forEach((value, name) => {
      rawHeaders.push(name, value);
    });
    return {
      status: res.status,
      statusText: res.statusText,
      httpVersion: "1.1",
      rawHeaders,
      body: bytes.subarray(0, request.maxResponseBytes).toString("base64"),
      ...(bytes.length > request.maxResponseBytes ? { truncated: true } : {}),
    };
  };
}
