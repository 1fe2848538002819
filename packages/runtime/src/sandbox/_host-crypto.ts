/**
 * The `crypto` calls beyond digests that SDKs make (signatures, ciphers, key derivation, keys),
 * done by Node's own `crypto` on the host: the guest (guest/crypto-more.js) sends the whole input
 * of each operation as JSON, bytes in base64, and gets Node's result back. No state is kept here
 * between calls: the guest keeps a cipher's state (see guest/crypto-more.js) and an ECDH private key.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createDiffieHellman,
  createECDH,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  diffieHellman,
  generateKeyPairSync,
  getCiphers,
  getCurves,
  getDiffieHellman,
  hkdfSync,
  type KeyObject,
  pbkdf2Sync,
  privateDecrypt,
  privateEncrypt,
  publicDecrypt,
  publicEncrypt,
  scryptSync,
  sign,
  verify,
} from "node:crypto";

/** A key as the guest describes it: a KeyObject's export, PEM text, bytes, or Node's key object. */
type KeyArg =
  | { $key: KeyDesc }
  | { pem: string }
  | { b64: string }
  | {
      key: KeyArg;
      format?: "pem" | "der" | "jwk";
      type?: string;
      passphrase?: KeyArg;
      encoding?: string;
      padding?: number;
      saltLength?: number;
      dsaEncoding?: "der" | "ieee-p1363";
      oaepHash?: string;
    }
  | { jwk: Record<string, unknown> };

/** How the guest holds a KeyObject: its kind and its bytes (DER for asymmetric keys). */
interface KeyDesc {
  kind: "secret" | "public" | "private";
  b64: string;
  asymmetricKeyType?: string;
  details?: Record<string, unknown>;
}

const bytes = (b64: string) => Buffer.from(b64, "base64");

/** Bounds of the derivations the host runs synchronously for a component. */
const MAX_PBKDF2_ITERATIONS = 1_000_000;
const MAX_DERIVED_BYTES = 4096;

/** The value Node's functions take for a key argument. */
function nodeKey(arg: KeyArg): any {
  if ("$key" in arg) return keyObject(arg.$key);
  if ("pem" in arg) return arg.pem;
  if ("b64" in arg) return bytes(arg.b64);
  if ("jwk" in arg) return { key: arg.jwk, format: "jwk" };
  const { key, passphrase, ...rest } = arg;
  const out: Record<string, unknown> = { ...rest, key: nodeKey(key) };
  if (passphrase !== undefined) out.passphrase = nodeKey(passphrase);
  return out;
}

function keyObject(desc: KeyDesc): KeyObject {
  if (desc.kind === "secret") return createSecretKey(bytes(desc.b64));
  if (desc.kind === "public") return createPublicKey({ key: bytes(desc.b64), format: "der", type: "spki" });
  return createPrivateKey({ key: bytes(desc.b64), format: "der", type: "pkcs8" });
}

/** A KeyObject as the guest holds it. */
function describeKey(key: KeyObject): KeyDesc {
  if (key.type === "secret") return { kind: "secret", b64: key.export().toString("base64") };
  const der =
    key.type === "public"
      ? key.export({ format: "der", type: "spki" })
      : key.export({ format: "der", type: "pkcs8" });
  return {
    kind: key.type,
    b64: der.toString("base64"),
    ...(key.asymmetricKeyType ? { asymmetricKeyType: key.asymmetricKeyType } : {}),
    details: { ...(key.asymmetricKeyDetails ?? {}) } as Record<string, unknown>,
  };
}

function stringify(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) out[k] = typeof v === "bigint" ? Number(v) : v;
  return out;
}

/** The ops, by name (merged into the host operations of _host-ops.ts). */
export const CRYPTO_OPS = {
  "crypto.constants": () => constants,
  "crypto.lists": () => ({ ciphers: getCiphers(), curves: getCurves() }),
  "crypto.cipher": (arg: {
    decipher: boolean;
    algorithm: string;
    key: KeyArg;
    iv: string | null;
    parts: string[];
    aad?: string;
    authTag?: string;
    authTagLength?: number;
    autoPadding?: boolean;
  }) => {
    const options = arg.authTagLength === undefined ? undefined : { authTagLength: arg.authTagLength };
    const key = nodeKey(arg.key);
    const iv = arg.iv === null ? null : bytes(arg.iv);
    const c: any = arg.decipher
      ? createDecipheriv(arg.algorithm, key, iv, options as never)
      : createCipheriv(arg.algorithm, key, iv, options as never);
    if (arg.autoPadding === false) c.setAutoPadding(false);
    if (arg.aad !== undefined) c.setAAD(bytes(arg.aad));
    if (arg.authTag !== undefined) c.setAuthTag(bytes(arg.authTag));
    const out = Buffer.concat([...arg.parts.map((p) => c.update(bytes(p))), c.final()]);
    const tag = !arg.decipher && typeof c.getAuthTag === "function" ? safeTag(c) : undefined;
    return { out: out.toString("base64"), ...(tag ? { authTag: tag } : {}) };
  },
  "crypto.sign": (arg: { algorithm: string | null; key: KeyArg; data: string }) =>
    sign(arg.algorithm, bytes(arg.data), nodeKey(arg.key)).toString("base64"),
  "crypto.verify": (arg: { algorithm: string | null; key: KeyArg; data: string; signature: string }) =>
    verify(arg.algorithm, bytes(arg.data), nodeKey(arg.key), bytes(arg.signature)),
  "crypto.rsa": (arg: {
    fn: "publicEncrypt" | "privateDecrypt" | "privateEncrypt" | "publicDecrypt";
    key: KeyArg;
    data: string;
  }) => {
    const fn = { publicEncrypt, privateDecrypt, privateEncrypt, publicDecrypt }[arg.fn];
    return fn(nodeKey(arg.key), bytes(arg.data)).toString("base64");
  },
  "crypto.pbkdf2": (arg: {
    password: string;
    salt: string;
    iterations: number;
    keylen: number;
    digest: string;
  }) => {
    // The host computes it synchronously: bounded so that a component cannot hold the thread.
    if (arg.iterations > MAX_PBKDF2_ITERATIONS || arg.keylen > MAX_DERIVED_BYTES)
      throw new RangeError(
        `pbkdf2: at most ${MAX_PBKDF2_ITERATIONS} iterations and ${MAX_DERIVED_BYTES} bytes in the sandbox`,
      );
    return pbkdf2Sync(bytes(arg.password), bytes(arg.salt), arg.iterations, arg.keylen, arg.digest).toString(
      "base64",
    );
  },
  "crypto.scrypt": (arg: {
    password: string;
    salt: string;
    keylen: number;
    options?: Record<string, number>;
  }) => {
    if (arg.keylen > MAX_DERIVED_BYTES) throw new RangeError(`scrypt: at most ${MAX_DERIVED_BYTES} bytes`);
    // Node's own memory cap (32 MB by default) bounds N and r, and so the time.
    const { maxmem: _ignored, ...options } = arg.options ?? {};
    return scryptSync(bytes(arg.password), bytes(arg.salt), arg.keylen, options).toString("base64");
  },
  "crypto.hkdf": (arg: { digest: string; ikm: string; salt: string; info: string; keylen: number }) =>
    Buffer.from(hkdfSync(arg.digest, bytes(arg.ikm), bytes(arg.salt), bytes(arg.info), arg.keylen)).toString(
      "base64",
    ),
  "crypto.createKey": (arg: { kind: "secret" | "public" | "private"; key: KeyArg }) => {
    const key = nodeKey(arg.key);
    const made =
      arg.kind === "secret"
        ? createSecretKey(key as Buffer)
        : arg.kind === "public"
          ? createPublicKey(key)
          : createPrivateKey(key);
    const desc = describeKey(made);
    if (desc.details) desc.details = stringify(desc.details);
    return desc;
  },
  "crypto.exportKey": (arg: { key: KeyDesc; options?: Record<string, unknown> }) => {
    const key = keyObject(arg.key);
    const options = arg.options ?? {};
    if (options.format === "jwk") return { jwk: key.export({ format: "jwk" }) };
    const out = key.export(options as never) as string | Buffer;
    return typeof out === "string" ? { text: out } : { b64: out.toString("base64") };
  },
  // ECDH on a named curve: new keys, or the secret of the guest's private key with a peer's public
  // key (the guest keeps its private key, so no state stays here).
  "crypto.ecdh": (arg: { curve: string; privateKey?: string; peer?: string }) => {
    const ecdh = createECDH(arg.curve);
    if (arg.privateKey === undefined) ecdh.generateKeys();
    else ecdh.setPrivateKey(bytes(arg.privateKey));
    return {
      privateKey: ecdh.getPrivateKey().toString("base64"),
      publicKey: ecdh.getPublicKey().toString("base64"),
      ...(arg.peer === undefined ? {} : { secret: ecdh.computeSecret(bytes(arg.peer)).toString("base64") }),
    };
  },
  // Finite-field Diffie-Hellman, the same way: a named group (modp14...) or a prime and generator.
  "crypto.dh": (arg: {
    group?: string;
    prime?: string;
    generator?: string;
    privateKey?: string;
    peer?: string;
  }) => {
    if (arg.group === undefined && bytes(arg.prime ?? "").length > 1024)
      throw new RangeError("createDiffieHellman: at most an 8192-bit prime in the sandbox");
    // A named group's object cannot take a private key: a plain one over its prime and generator.
    const group = arg.group === undefined ? undefined : getDiffieHellman(arg.group);
    const dh = group
      ? createDiffieHellman(group.getPrime(), group.getGenerator())
      : createDiffieHellman(bytes(arg.prime ?? ""), bytes(arg.generator ?? "Ag=="));
    if (arg.privateKey !== undefined) dh.setPrivateKey(bytes(arg.privateKey));
    dh.generateKeys();
    return {
      prime: dh.getPrime().toString("base64"),
      generator: dh.getGenerator().toString("base64"),
      privateKey: dh.getPrivateKey().toString("base64"),
      publicKey: dh.getPublicKey().toString("base64"),
      ...(arg.peer === undefined ? {} : { secret: dh.computeSecret(bytes(arg.peer)).toString("base64") }),
    };
  },
  "crypto.diffieHellman": (arg: { privateKey: KeyDesc; publicKey: KeyDesc }) =>
    diffieHellman({ privateKey: keyObject(arg.privateKey), publicKey: keyObject(arg.publicKey) }).toString(
      "base64",
    ),
  "crypto.generateKeyPair": (arg: { type: string; options: Record<string, unknown> }) => {
    if (Number(arg.options.modulusLength ?? 0) > 4096)
      throw new RangeError("generateKeyPair: at most a 4096-bit modulus in the sandbox");
    const { publicKey, privateKey } = generateKeyPairSync(arg.type as never, arg.options as never) as {
      publicKey: KeyObject | string | Buffer;
      privateKey: KeyObject | string | Buffer;
    };
    const wire = (k: KeyObject | string | Buffer) => {
      if (typeof k === "string") return { text: k };
      if (Buffer.isBuffer(k)) return { b64: k.toString("base64") };
      const desc = describeKey(k);
      if (desc.details) desc.details = stringify(desc.details);
      return { key: desc };
    };
    return { publicKey: wire(publicKey), privateKey: wire(privateKey) };
  },
} as const;

function safeTag(c: { getAuthTag: () => Buffer }): string | undefined {
  try {
    return c.getAuthTag().toString("base64");
  } catch {
    return undefined;
  }
}
