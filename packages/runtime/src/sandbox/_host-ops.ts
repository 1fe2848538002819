/**
 * The synchronous host operations the guest shims call through `hostCall(op, json)`: WHATWG URL
 * parsing and the `crypto` calls components use. They take and return JSON strings; a thrown
 * error becomes a guest exception.
 */
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import { CRYPTO_OPS } from "./_host-crypto.js";
import { INTL_OPS } from "./_host-intl.js";

const URL_FIELDS = [
  "href",
  "origin",
  "protocol",
  "username",
  "password",
  "host",
  "hostname",
  "port",
  "pathname",
  "search",
  "hash",
] as const;

function urlParts(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of URL_FIELDS) out[field] = url[field];
  return out;
}

type Op = (arg: never) => unknown;

const OPS: Record<string, Op> = {
  url: (arg: { input: string; base?: string }) => {
    if (!URL.canParse(arg.input, arg.base)) throw new TypeError(`Invalid URL: ${arg.input}`);
    return urlParts(new URL(arg.input, arg.base));
  },
  "url.set": (arg: { href: string; field: (typeof URL_FIELDS)[number]; value: string }) => {
    const url = new URL(arg.href);
    if (arg.field !== "origin") (url as unknown as Record<string, string>)[arg.field] = arg.value;
    return urlParts(url);
  },
  "crypto.digest": (arg: { kind: "hash" | "hmac"; algorithm: string; key?: string; parts: string[] }) => {
    const h =
      arg.kind === "hmac"
        ? createHmac(arg.algorithm, Buffer.from(arg.key ?? "", "base64"))
        : createHash(arg.algorithm);
    for (const part of arg.parts) h.update(Buffer.from(part, "base64"));
    return h.digest("base64");
  },
  "crypto.random": (n: number) => {
    if (!Number.isInteger(n) || n < 0 || n > 65536)
      throw new RangeError("randomBytes: size must be 0..65536");
    return randomBytes(n).toString("base64");
  },
  "crypto.uuid": () => randomUUID(),
  ...(CRYPTO_OPS as unknown as Record<string, Op>),
  ...(INTL_OPS as unknown as Record<string, Op>),
};

/** Runs one synchronous host operation; returns its JSON result ("" for undefined). */
export function runHostOp(op: string, argJson: string): string {
  const fn = OPS[op];
  if (!fn) throw new Error(`unknown host operation ${op}`);
  const result = fn(JSON.parse(argJson) as never);
  return result === undefined ? "" : JSON.stringify(result);
}
