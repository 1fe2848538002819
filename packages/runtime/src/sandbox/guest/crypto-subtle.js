// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// `crypto.subtle` (Web Crypto) and `CryptoKey` over the `crypto` module's calls, which Node's crypto
// does on the host: digest, HMAC, RSASSA-PKCS1-v1_5, RSA-PSS, ECDSA and Ed25519 signatures, AES-GCM,
// AES-CBC, AES-CTR and RSA-OAEP encryption, PBKDF2 and HKDF derivation, and importKey/exportKey
// (raw, jwk, pkcs8, spki) and generateKey for those algorithms. jose 6 and other ESM SDKs use it.
(function (S) {
  var c = S.load("crypto").modules.crypto;
  var Buffer = S.load("bytes").Buffer;
  var G = S.G;
  var KEYS = new WeakMap();
  var NAMES = {};
  for (var n of [
    "HMAC",
    "RSASSA-PKCS1-v1_5",
    "RSA-PSS",
    "RSA-OAEP",
    "ECDSA",
    "ECDH",
    "Ed25519",
    "AES-GCM",
    "AES-CBC",
    "AES-CTR",
    "PBKDF2",
    "HKDF",
    "SHA-1",
    "SHA-256",
    "SHA-384",
    "SHA-512",
  ])
    NAMES[n.toUpperCase()] = n;
  var SECRET = { HMAC: 1, "AES-GCM": 1, "AES-CBC": 1, "AES-CTR": 1, PBKDF2: 1, HKDF: 1 };
  var HASHES = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" };
  var BLOCK_BITS = { "SHA-1": 512, "SHA-256": 512, "SHA-384": 1024, "SHA-512": 1024 };
  var CURVES = { "P-256": 1, "P-384": 1, "P-521": 1 };

  var fail = (message, name) => new G.DOMException(message, name || "NotSupportedError");
  function alg(a) {
    var o = typeof a === "string" ? { name: a } : Object.assign({}, a);
    var name = NAMES[String(o.name).toUpperCase()];
    if (!name) throw fail("Unrecognized algorithm name");
    o.name = name;
    if (o.hash !== undefined) o.hash = alg(o.hash);
    return o;
  }
  function hashOf(a) {
    var h = HASHES[alg(a).name];
    if (!h) throw fail("Unrecognized hash");
    return h;
  }
  function buf(data) {
    if (data instanceof ArrayBuffer) return Buffer.from(data);
    if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    throw new TypeError("The data must be an ArrayBuffer or an ArrayBufferView");
  }
  var ab = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  var b64url = (b) => Buffer.from(b).toString("base64url");

  class CryptoKey {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
    get [Symbol.toStringTag]() {
      return "CryptoKey";
    }
  }
  function makeKey(keyObject, algorithm, extractable, usages, type) {
    var k = Object.create(CryptoKey.prototype);
    var define = (name, value) => Object.defineProperty(k, name, { value: value, enumerable: true });
    define("type", type || keyObject.type);
    define("extractable", !!extractable);
    define("algorithm", algorithm);
    define("usages", Array.from(usages || []));
    KEYS.set(k, keyObject);
    return k;
  }
  function keyOf(key, usage) {
    var k = KEYS.get(key);
    if (!k) throw new TypeError("The key must be a CryptoKey");
    if (usage && key.usages.indexOf(usage) === -1)
      throw fail("The key does not support the '" + usage + "' operation", "InvalidAccessError");
    return k;
  }
  // The `algorithm` of a key as Web Crypto describes it.
  function describe(a, keyObject) {
    var name = a.name;
    if (name === "HMAC") {
      var bits = keyObject.symmetricKeySize * 8;
      return { name: name, hash: { name: a.hash.name }, length: bits };
    }
    if (SECRET[name])
      return name === "PBKDF2" || name === "HKDF"
        ? { name: name }
        : { name: name, length: keyObject.symmetricKeySize * 8 };
    var details = keyObject.asymmetricKeyDetails || {};
    if (name === "ECDSA" || name === "ECDH") return { name: name, namedCurve: a.namedCurve };
    if (name === "Ed25519") return { name: name };
    var e = BigInt(details.publicExponent === undefined ? 65537 : details.publicExponent);
    var exp = [];
    for (; e > 0n; e >>= 8n) exp.unshift(Number(e & 255n));
    return {
      name: name,
      modulusLength: Number(details.modulusLength),
      publicExponent: new Uint8Array(exp),
      hash: { name: a.hash.name },
    };
  }
  // A raw EC or Ed25519 public key as a JWK.
  function rawPublicJwk(a, bytes) {
    if (a.name === "Ed25519") return { kty: "OKP", crv: "Ed25519", x: b64url(bytes) };
    if (bytes[0] !== 4) throw fail("Only uncompressed EC points are supported", "DataError");
    var size = (bytes.length - 1) / 2;
    return {
      kty: "EC",
      crv: a.namedCurve,
      x: b64url(bytes.subarray(1, 1 + size)),
      y: b64url(bytes.subarray(1 + size)),
    };
  }
  function importKey(format, data, algorithm, extractable, usages) {
    var a = alg(algorithm);
    if ((a.name === "ECDSA" || a.name === "ECDH") && !CURVES[a.namedCurve])
      throw fail("Unsupported named curve");
    var keyObject;
    if (SECRET[a.name]) {
      var raw;
      if (format === "raw") raw = buf(data);
      else if (format === "jwk" && data.kty === "oct") raw = Buffer.from(data.k, "base64url");
      else throw fail("Unsupported key format for " + a.name);
      keyObject = c.createSecretKey(raw);
    } else if (format === "raw")
      keyObject = c.createPublicKey({ key: rawPublicJwk(a, buf(data)), format: "jwk" });
    else if (format === "jwk")
      keyObject = data.d
        ? c.createPrivateKey({ key: data, format: "jwk" })
        : c.createPublicKey({ key: data, format: "jwk" });
    else if (format === "pkcs8")
      keyObject = c.createPrivateKey({ key: buf(data), format: "der", type: "pkcs8" });
    else if (format === "spki")
      keyObject = c.createPublicKey({ key: buf(data), format: "der", type: "spki" });
    else throw fail("Unsupported key format " + format);
    return makeKey(keyObject, describe(a, keyObject), extractable, usages);
  }
  function exportKey(format, key) {
    var k = keyOf(key);
    if (!key.extractable) throw fail("The key is not extractable", "InvalidAccessError");
    if (format === "jwk") {
      var jwk = k.type === "secret" ? { kty: "oct", k: b64url(k.export()) } : k.export({ format: "jwk" });
      jwk.key_ops = key.usages.slice();
      jwk.ext = true;
      return jwk;
    }
    if (format === "raw") {
      if (k.type === "secret") return ab(k.export());
      var pub = k.export({ format: "jwk" });
      if (pub.kty === "OKP") return ab(Buffer.from(pub.x, "base64url"));
      return ab(
        Buffer.concat([Buffer.from([4]), Buffer.from(pub.x, "base64url"), Buffer.from(pub.y, "base64url")]),
      );
    }
    if (format === "pkcs8" || format === "spki") return ab(k.export({ format: "der", type: format }));
    throw fail("Unsupported key format " + format);
  }
  // The `sign` arguments of Node for a Web Crypto signature algorithm.
  function signArgs(a, key, k) {
    var name = key.algorithm.name;
    if (name === "Ed25519") return [null, k];
    if (name === "ECDSA") return [hashOf(a.hash), { key: k, dsaEncoding: "ieee-p1363" }];
    var hash = hashOf(key.algorithm.hash);
    if (name === "RSA-PSS") return [hash, { key: k, padding: 6, saltLength: a.saltLength }];
    return [hash, k];
  }
  function sign(algorithm, key, data) {
    var a = alg(algorithm);
    var k = keyOf(key, "sign");
    if (a.name === "HMAC") return ab(c.createHmac(hashOf(key.algorithm.hash), k).update(buf(data)).digest());
    var args = signArgs(a, key, k);
    return ab(c.sign(args[0], buf(data), args[1]));
  }
  function verify(algorithm, key, signature, data) {
    var a = alg(algorithm);
    var k = keyOf(key, "verify");
    if (a.name === "HMAC") {
      var mac = c.createHmac(hashOf(key.algorithm.hash), k).update(buf(data)).digest();
      var sig = buf(signature);
      return mac.length === sig.length && c.timingSafeEqual(mac, sig);
    }
    var args = signArgs(a, key, k);
    return c.verify(args[0], buf(data), args[1], buf(signature));
  }
  function aes(a, key, k, decrypt, data) {
    var mode = a.name.slice(4).toLowerCase();
    var cipherName = "aes-" + key.algorithm.length + "-" + mode;
    var input = buf(data);
    var iv = buf(mode === "ctr" ? a.counter : a.iv);
    var tagLength = (a.tagLength || 128) / 8;
    var options = mode === "gcm" ? { authTagLength: tagLength } : undefined;
    var cipher = (decrypt ? c.createDecipheriv : c.createCipheriv)(cipherName, k, iv, options);
    if (mode === "gcm" && a.additionalData !== undefined) cipher.setAAD(buf(a.additionalData));
    if (mode === "gcm" && decrypt) {
      cipher.setAuthTag(input.subarray(input.length - tagLength));
      input = input.subarray(0, input.length - tagLength);
    }
    var out;
    try {
      out = Buffer.concat([cipher.update(input), cipher.final()]);
    } catch (e) {
      throw fail("The operation failed for an operation-specific reason", "OperationError");
    }
    if (mode === "gcm" && !decrypt) out = Buffer.concat([out, cipher.getAuthTag()]);
    return ab(out);
  }
  function crypt(decrypt) {
    return (algorithm, key, data) => {
      var a = alg(algorithm);
      var k = keyOf(key, decrypt ? "decrypt" : "encrypt");
      if (a.name !== "RSA-OAEP") return aes(a, key, k, decrypt, data);
      var arg = { key: k, padding: 4, oaepHash: hashOf(key.algorithm.hash) };
      return ab((decrypt ? c.privateDecrypt : c.publicEncrypt)(arg, buf(data)));
    };
  }
  function deriveBits(algorithm, key, length) {
    var a = alg(algorithm);
    var k = keyOf(key, "deriveBits");
    if (a.name === "PBKDF2")
      return ab(c.pbkdf2Sync(k.export(), buf(a.salt), a.iterations, length / 8, hashOf(a.hash)));
    if (a.name === "HKDF")
      return c.hkdfSync(hashOf(a.hash), k.export(), buf(a.salt), buf(a.info), length / 8);
    throw fail(a.name + " key derivation is not available in the Hookline sandbox");
  }
  function generateKey(algorithm, extractable, usages) {
    var a = alg(algorithm);
    if (SECRET[a.name]) {
      var bits = a.length || (a.name === "HMAC" ? BLOCK_BITS[a.hash.name] : 0);
      if (!bits) throw fail("A key length is required", "OperationError");
      return importKey("raw", c.randomBytes(bits / 8), a, extractable, usages);
    }
    var pair;
    if (a.name === "Ed25519") pair = c.generateKeyPairSync("ed25519");
    else if (a.name === "ECDSA" || a.name === "ECDH")
      pair = c.generateKeyPairSync("ec", { namedCurve: a.namedCurve });
    else {
      var e = 0;
      for (var byte of buf(a.publicExponent || new Uint8Array([1, 0, 1]))) e = e * 256 + byte;
      pair = c.generateKeyPairSync("rsa", { modulusLength: a.modulusLength, publicExponent: e });
    }
    var description = describe(a, pair.privateKey);
    var publicUses = ["verify", "encrypt", "wrapKey"];
    var list = Array.from(usages || []);
    return {
      publicKey: makeKey(
        pair.publicKey,
        description,
        true,
        list.filter((u) => publicUses.indexOf(u) !== -1),
      ),
      privateKey: makeKey(
        pair.privateKey,
        description,
        extractable,
        list.filter((u) => publicUses.indexOf(u) === -1),
      ),
    };
  }
  function deriveKey(algorithm, key, derivedAlgorithm, extractable, usages) {
    var d = alg(derivedAlgorithm);
    var length = d.length || (d.name === "HMAC" ? BLOCK_BITS[d.hash.name] : 0);
    return importKey("raw", deriveBits(algorithm, key, length), d, extractable, usages);
  }
  // Each method is async, as Web Crypto's: errors reject.
  var later = (fn) =>
    function () {
      var args = arguments;
      return new Promise((resolve) => resolve(fn.apply(null, args)));
    };
  class SubtleCrypto {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
  }
  var subtle = Object.create(SubtleCrypto.prototype);
  var methods = {
    digest: (algorithm, data) => ab(c.createHash(hashOf(algorithm)).update(buf(data)).digest()),
    importKey: importKey,
    exportKey: exportKey,
    generateKey: generateKey,
    sign: sign,
    verify: verify,
    encrypt: crypt(false),
    decrypt: crypt(true),
    deriveBits: deriveBits,
    deriveKey: deriveKey,
  };
  for (var m in methods) subtle[m] = later(methods[m]);
  ["wrapKey", "unwrapKey"].forEach((unsupported) => {
    subtle[unsupported] = later(() => {
      throw fail("crypto.subtle." + unsupported + "() is not available in the Hookline sandbox");
    });
  });
  return { CryptoKey: CryptoKey, SubtleCrypto: SubtleCrypto, subtle: subtle };
});
