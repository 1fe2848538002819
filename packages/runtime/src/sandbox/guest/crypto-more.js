// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `crypto` calls SDKs make beyond digests, each done by Node's crypto on the host
// (sandbox/_host-crypto.ts): sign/verify, ciphers, pbkdf2, scrypt, hkdf, RSA encryption, keys
// (KeyObject, generateKeyPair), ECDH, `diffieHellman` and `constants`. The host keeps no state:
// a stream cipher (AES-CTR, AES-GCM with a 12-byte IV, ChaCha20) streams, `update()` returning
// the output of its input at once: the guest keeps the byte offset and the host runs the
// keystream from the counter block of that offset (GCM's is AES-CTR from IV || 2; its input is
// also sent whole at `final()` for the tag). Other ciphers send their whole input at `final()`,
// so `update()` returns an empty Buffer and `final()` everything: concatenated, as Node's.
(function (S) {
  var host = S.load("host");
  var callHost = host.callHost;
  var bytes = S.load("bytes");
  var Buffer = bytes.Buffer;
  var b64 = (data, encoding) => bytes.base64Encode(bytes.toBytes(data, encoding), false);
  var out = (base64, encoding) => {
    var buf = Buffer.from(base64, "base64");
    return encoding && encoding !== "buffer" ? buf.toString(encoding) : buf;
  };
  // Node's callback form of a synchronous call, on a later tick.
  function later(cb, fn) {
    if (typeof cb !== "function") throw new TypeError('The "callback" argument must be of type function');
    var result;
    var error = null;
    try {
      result = fn();
    } catch (e) {
      error = e;
    }
    S.G.setTimeout(() => (error ? cb(error) : cb(null, result)), 0);
  }

  class KeyObject {
    constructor(desc) {
      this._desc = desc;
    }
    get type() {
      return this._desc.kind;
    }
    get asymmetricKeyType() {
      return this._desc.asymmetricKeyType;
    }
    get asymmetricKeyDetails() {
      return this._desc.details;
    }
    get symmetricKeySize() {
      return this._desc.kind === "secret" ? Buffer.from(this._desc.b64, "base64").length : undefined;
    }
    export(options) {
      var r = callHost("crypto.exportKey", { key: this._desc, options: options || {} });
      if (r.jwk) return r.jwk;
      return r.text !== undefined ? r.text : Buffer.from(r.b64, "base64");
    }
    equals(other) {
      return other instanceof KeyObject && other._desc.b64 === this._desc.b64 && other.type === this.type;
    }
  }
  var isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);
  function keyArg(k) {
    if (k instanceof KeyObject) return { $key: k._desc };
    if (typeof k === "string") return k.indexOf("-----BEGIN") !== -1 ? { pem: k } : { b64: b64(k) };
    if (isBytes(k)) return { b64: b64(k) };
    if (k && typeof k === "object") {
      if (typeof k.kty === "string") return { jwk: k };
      if (k.format === "jwk") return { jwk: k.key };
      var arg = {
        key: typeof k.key === "string" && k.encoding ? { b64: b64(k.key, k.encoding) } : keyArg(k.key),
      };
      for (var f of ["format", "type", "padding", "saltLength", "dsaEncoding", "oaepHash"])
        if (k[f] !== undefined) arg[f] = k[f];
      if (k.passphrase !== undefined) arg.passphrase = { b64: b64(k.passphrase) };
      return arg;
    }
    throw new TypeError("The key must be a string, a Buffer, a KeyObject or a key object");
  }
  var createKey = (kind) => (key) =>
    new KeyObject(callHost("crypto.createKey", { kind: kind, key: keyArg(key) }));

  function Cipher(decipher, algorithm, key, iv, options) {
    this._arg = {
      decipher: decipher,
      algorithm: String(algorithm),
      key: keyArg(key),
      iv: iv === null || iv === undefined ? null : b64(iv),
      parts: [],
    };
    if (options && options.authTagLength !== undefined) this._arg.authTagLength = options.authTagLength;
    this._tag = undefined;
    this._stream = streamOf(this._arg.algorithm, iv);
  }
  var encoded = (buf, encoding) => (encoding && encoding !== "buffer" ? buf.toString(encoding) : buf);
  // How a stream cipher's keystream runs on the host: its CTR algorithm, first counter block, block
  // size and counter (the last `width` bytes big-endian, or the first 4 little-endian).
  function streamOf(algorithm, iv) {
    // A copy: ssh2 changes its IV buffer after creating a cipher.
    var ivBytes = iv === null || iv === undefined ? null : new Uint8Array(bytes.toBytes(iv));
    var alg = algorithm.toLowerCase();
    var aes = /^aes-(128|192|256)-(ctr|gcm)$/.exec(alg);
    if (aes && aes[2] === "ctr" && ivBytes && ivBytes.length === 16)
      return { alg: alg, base: ivBytes, block: 16, width: 16, offset: 0 };
    if (aes && aes[2] === "gcm" && ivBytes && ivBytes.length === 12) {
      var base = new Uint8Array(16);
      base.set(ivBytes);
      base[15] = 2;
      return { alg: "aes-" + aes[1] + "-ctr", base: base, block: 16, width: 4, offset: 0, gcm: true };
    }
    if (alg === "chacha20" && ivBytes && ivBytes.length === 16)
      return { alg: alg, base: ivBytes, block: 64, width: 4, offset: 0, littleEndian: true };
    return null;
  }
  // The counter block `n` blocks after the stream's first.
  function counterAt(st, n) {
    var c = new Uint8Array(st.base);
    var carry = n;
    for (var k = 0; k < st.width && carry > 0; k++) {
      var i = st.littleEndian ? k : 15 - k;
      var sum = c[i] + (carry % 256);
      c[i] = sum & 255;
      carry = Math.floor(carry / 256) + (sum >> 8);
    }
    return c;
  }
  Cipher.prototype.update = function (data, inputEncoding, outputEncoding) {
    var st = this._stream;
    if (!st) {
      this._arg.parts.push(b64(data, inputEncoding));
      return encoded(Buffer.alloc(0), outputEncoding);
    }
    var input = bytes.toBytes(data, inputEncoding);
    if (st.gcm) this._arg.parts.push(b64(input));
    var skip = st.offset % st.block;
    var padded = new Uint8Array(skip + input.length);
    padded.set(input, skip);
    var r = callHost("crypto.cipher", {
      decipher: false,
      algorithm: st.alg,
      key: this._arg.key,
      iv: b64(counterAt(st, Math.floor(st.offset / st.block))),
      parts: [b64(padded)],
    });
    st.offset += input.length;
    return encoded(Buffer.from(r.out, "base64").subarray(skip), outputEncoding);
  };
  Cipher.prototype.final = function (outputEncoding) {
    var st = this._stream;
    if (st && !st.gcm) return encoded(Buffer.alloc(0), outputEncoding);
    var r = callHost("crypto.cipher", this._arg);
    if (st) {
      // GCM: the output went out at `update()`; the host computes the tag, or checks it.
      this._tag = r.authTag;
      return encoded(Buffer.alloc(0), outputEncoding);
    }
    this._tag = r.authTag;
    return out(r.out, outputEncoding);
  };
  Cipher.prototype.setAAD = function (aad) {
    this._arg.aad = b64(aad);
    return this;
  };
  Cipher.prototype.setAuthTag = function (tag) {
    this._arg.authTag = b64(tag);
    return this;
  };
  Cipher.prototype.getAuthTag = function () {
    if (this._tag === undefined) throw new Error("Invalid state for operation getAuthTag");
    return Buffer.from(this._tag, "base64");
  };
  Cipher.prototype.setAutoPadding = function (on) {
    this._arg.autoPadding = on !== false;
    return this;
  };

  function Signer(algorithm) {
    this._alg = algorithm === undefined || algorithm === null ? null : String(algorithm);
    this._parts = [];
  }
  Signer.prototype.update = function (data, encoding) {
    this._parts.push(bytes.toBytes(data, encoding));
    return this;
  };
  Signer.prototype._data = function () {
    return b64(Buffer.concat(this._parts));
  };
  Signer.prototype.sign = function (key, encoding) {
    return out(
      callHost("crypto.sign", { algorithm: this._alg, key: keyArg(key), data: this._data() }),
      encoding,
    );
  };
  Signer.prototype.verify = function (key, signature, encoding) {
    return callHost("crypto.verify", {
      algorithm: this._alg,
      key: keyArg(key),
      data: this._data(),
      signature: b64(signature, encoding),
    });
  };
  Signer.prototype.end = function (data) {
    if (data !== undefined) this.update(data);
    return this;
  };

  function pbkdf2Sync(password, salt, iterations, keylen, digest) {
    var r = callHost("crypto.pbkdf2", {
      password: b64(password),
      salt: b64(salt),
      iterations: iterations,
      keylen: keylen,
      digest: digest === undefined ? "sha1" : String(digest),
    });
    return out(r);
  }
  function scryptSync(password, salt, keylen, options) {
    return out(
      callHost("crypto.scrypt", {
        password: b64(password),
        salt: b64(salt),
        keylen: keylen,
        options: options,
      }),
    );
  }
  function hkdfSync(digest, ikm, salt, info, keylen) {
    var r = callHost("crypto.hkdf", {
      digest: digest,
      ikm: b64(ikm),
      salt: b64(salt),
      info: b64(info),
      keylen: keylen,
    });
    return Buffer.from(r, "base64").buffer;
  }
  function pairPart(part) {
    if (part.key) return new KeyObject(part.key);
    return part.text !== undefined ? part.text : Buffer.from(part.b64, "base64");
  }
  function generateKeyPairSync(type, options) {
    var r = callHost("crypto.generateKeyPair", { type: type, options: options || {} });
    return { publicKey: pairPart(r.publicKey), privateKey: pairPart(r.privateKey) };
  }
  // ECDH on a named curve; the private key stays here, each call sends it to the host.
  class ECDH {
    constructor(curve) {
      this._curve = String(curve);
      this._keys = null;
    }
    _set(r) {
      this._keys = {
        privateKey: Buffer.from(r.privateKey, "base64"),
        publicKey: Buffer.from(r.publicKey, "base64"),
      };
    }
    generateKeys(encoding) {
      this._set(callHost("crypto.ecdh", { curve: this._curve }));
      return this.getPublicKey(encoding);
    }
    setPrivateKey(key, encoding) {
      this._set(callHost("crypto.ecdh", { curve: this._curve, privateKey: b64(key, encoding) }));
    }
    getPublicKey(encoding) {
      if (!this._keys) throw new Error("Failed to get ECDH public key");
      return encoded(this._keys.publicKey, encoding);
    }
    getPrivateKey(encoding) {
      if (!this._keys) throw new Error("Failed to get ECDH private key");
      return encoded(this._keys.privateKey, encoding);
    }
    computeSecret(other, inputEncoding, outputEncoding) {
      if (!this._keys) throw new Error("Failed to compute ECDH key");
      var r = callHost("crypto.ecdh", {
        curve: this._curve,
        privateKey: b64(this._keys.privateKey),
        peer: b64(other, inputEncoding),
      });
      return encoded(Buffer.from(r.secret, "base64"), outputEncoding);
    }
  }
  // Finite-field Diffie-Hellman (a named group or a prime and generator), kept as ECDH is.
  class DiffieHellman {
    constructor(group) {
      this._group = group;
      this._keys = null;
    }
    _call(extra) {
      var r = callHost("crypto.dh", Object.assign({}, this._group, extra));
      this._keys = r;
      return r;
    }
    generateKeys(encoding) {
      if (!this._keys) this._call({});
      return this.getPublicKey(encoding);
    }
    setPrivateKey(key, encoding) {
      this._call({ privateKey: b64(key, encoding) });
    }
    _get(field, encoding) {
      var r = this._keys || (field === "prime" || field === "generator" ? this._call({}) : null);
      if (!r) throw new Error("No " + field + " yet: call generateKeys()");
      return encoded(Buffer.from(r[field], "base64"), encoding);
    }
    getPublicKey(encoding) {
      return this._get("publicKey", encoding);
    }
    getPrivateKey(encoding) {
      return this._get("privateKey", encoding);
    }
    getPrime(encoding) {
      return this._get("prime", encoding);
    }
    getGenerator(encoding) {
      return this._get("generator", encoding);
    }
    computeSecret(other, inputEncoding, outputEncoding) {
      if (!this._keys) throw new Error("No private key yet: call generateKeys()");
      var r = callHost(
        "crypto.dh",
        Object.assign({}, this._group, {
          privateKey: this._keys.privateKey,
          peer: b64(other, inputEncoding),
        }),
      );
      return encoded(Buffer.from(r.secret, "base64"), outputEncoding);
    }
  }
  function createDiffieHellman(prime, primeEncoding, generator, generatorEncoding) {
    if (typeof prime === "number")
      throw new Error("createDiffieHellman: generating a prime is not available in the sandbox");
    if (typeof primeEncoding !== "string") {
      generatorEncoding = undefined;
      generator = primeEncoding;
    }
    var gen = generator === undefined ? 2 : generator;
    var hex = typeof gen === "number" ? gen.toString(16) : "";
    var genBytes =
      typeof gen === "number"
        ? Buffer.from(hex.length % 2 ? "0" + hex : hex, "hex")
        : bytes.toBytes(gen, generatorEncoding);
    return new DiffieHellman({
      prime: b64(prime, typeof primeEncoding === "string" ? primeEncoding : undefined),
      generator: b64(genBytes),
    });
  }
  function diffieHellman(options) {
    var o = options || {};
    if (!(o.privateKey instanceof KeyObject) || !(o.publicKey instanceof KeyObject))
      throw new TypeError('The "options.privateKey" and "options.publicKey" properties must be KeyObjects');
    return out(
      callHost("crypto.diffieHellman", { privateKey: o.privateKey._desc, publicKey: o.publicKey._desc }),
    );
  }
  var rsa = (fn) => (key, data) => out(callHost("crypto.rsa", { fn: fn, key: keyArg(key), data: b64(data) }));
  var constants;
  var lists;

  return {
    // Adds the calls to the `crypto` module object.
    extend: (mod) => {
      Object.assign(mod, {
        KeyObject: KeyObject,
        createSecretKey: (key, encoding) => createKey("secret")(encoding ? Buffer.from(key, encoding) : key),
        createPublicKey: createKey("public"),
        createPrivateKey: createKey("private"),
        createCipheriv: (alg, key, iv, options) => new Cipher(false, alg, key, iv, options),
        createDecipheriv: (alg, key, iv, options) => new Cipher(true, alg, key, iv, options),
        createECDH: (curve) => new ECDH(curve),
        diffieHellman: diffieHellman,
        createDiffieHellman: createDiffieHellman,
        createDiffieHellmanGroup: (name) => new DiffieHellman({ group: String(name) }),
        getDiffieHellman: (name) => new DiffieHellman({ group: String(name) }),
        createSign: (alg) => new Signer(alg),
        createVerify: (alg) => new Signer(alg),
        sign: (alg, data, key, cb) => {
          var run = () => new Signer(alg).update(data).sign(key);
          return cb ? later(cb, run) : run();
        },
        verify: (alg, data, key, signature, cb) => {
          var run = () => new Signer(alg).update(data).verify(key, signature);
          return cb ? later(cb, run) : run();
        },
        publicEncrypt: rsa("publicEncrypt"),
        privateDecrypt: rsa("privateDecrypt"),
        privateEncrypt: rsa("privateEncrypt"),
        publicDecrypt: rsa("publicDecrypt"),
        pbkdf2Sync: pbkdf2Sync,
        pbkdf2: (password, salt, iterations, keylen, digest, cb) =>
          later(cb, () => pbkdf2Sync(password, salt, iterations, keylen, digest)),
        scryptSync: scryptSync,
        scrypt: (password, salt, keylen, options, cb) => {
          if (typeof options === "function") {
            cb = options;
            options = undefined;
          }
          later(cb, () => scryptSync(password, salt, keylen, options));
        },
        hkdfSync: hkdfSync,
        hkdf: (digest, ikm, salt, info, keylen, cb) =>
          later(cb, () => hkdfSync(digest, ikm, salt, info, keylen)),
        generateKeyPairSync: generateKeyPairSync,
        generateKeyPair: (type, options, cb) => {
          if (typeof cb !== "function")
            throw new TypeError('The "callback" argument must be of type function');
          var pair;
          try {
            pair = generateKeyPairSync(type, options);
          } catch (e) {
            S.G.setTimeout(() => cb(e), 0);
            return;
          }
          S.G.setTimeout(() => cb(null, pair.publicKey, pair.privateKey), 0);
        },
        getCiphers: () => (lists = lists || callHost("crypto.lists")).ciphers.slice(),
        getCurves: () => (lists = lists || callHost("crypto.lists")).curves.slice(),
      });
      Object.defineProperty(mod, "constants", {
        enumerable: true,
        get: () => (constants = constants || Object.freeze(callHost("crypto.constants"))),
      });
      return mod;
    },
  };
});
