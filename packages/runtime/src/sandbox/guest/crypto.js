// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `crypto` module and the `crypto` global (its webcrypto subset); digests run on the host.
(function (S) {
  var callHost = S.load("host").callHost;
  var bytes = S.load("bytes");
  var base64Encode = bytes.base64Encode;
  var toBytes = bytes.toBytes;
  function makeCrypto() {
    function digestOut(b64, encoding) {
      var out = bytes.Buffer.from(b64, "base64");
      return encoding ? out.toString(encoding) : out;
    }
    // `key` of an HMAC: bytes, a string, or a secret KeyObject (jsonwebtoken 9 passes one).
    function hmacKey(key) {
      if (key === undefined) return undefined;
      if (key instanceof mod.KeyObject) {
        if (key.type !== "secret")
          throw new TypeError("Invalid key object type " + key.type + ", expected secret.");
        return key._desc.b64;
      }
      return base64Encode(toBytes(key), false);
    }
    function Hasher(kind, algorithm, key) {
      this._kind = kind;
      this._alg = String(algorithm);
      this._key = hmacKey(key);
      this._parts = [];
      // Node's Hash has `copy()`; its Hmac does not.
      if (kind === "hash") this.copy = copyHash;
    }
    Hasher.prototype.update = function (data, encoding) {
      this._parts.push(base64Encode(toBytes(data, encoding), false));
      return this;
    };
    Hasher.prototype.digest = function (encoding) {
      var b64 = callHost("crypto.digest", {
        kind: this._kind,
        algorithm: this._alg,
        key: this._key,
        parts: this._parts,
      });
      return digestOut(b64, encoding);
    };
    // A hash of what was written so far, as Node's `hash.copy()` (the AWS SDK's signer calls it).
    function copyHash() {
      var copy = new Hasher(this._kind, this._alg);
      copy._parts = this._parts.slice();
      return copy;
    }
    function randomBytes(n, callback) {
      var out = bytes.Buffer.from(callHost("crypto.random", n), "base64");
      if (typeof callback === "function") Promise.resolve().then(() => callback(null, out));
      else return out;
    }
    // Fills `size` elements of a typed array (bytes of a buffer) from `offset`, as Node counts
    // them (uuid's Node build calls this).
    function randomFillSync(buf, offset, size) {
      var unit = buf.BYTES_PER_ELEMENT || 1;
      var length = (buf.byteLength || 0) / unit;
      var start = offset === undefined ? 0 : offset;
      var count = size === undefined ? length - start : size;
      if (start < 0 || count < 0 || start + count > length)
        throw new RangeError('The value of "offset" or "size" is out of range');
      var view = new Uint8Array(buf.buffer || buf, (buf.byteOffset || 0) + start * unit, count * unit);
      if (count > 0) view.set(randomBytes(count * unit));
      return buf;
    }
    function randomFill(buf, offset, size, callback) {
      var args = [offset, size, callback].filter((a) => a !== undefined);
      var cb = args.pop();
      var filled;
      try {
        filled = randomFillSync(buf, args[0], args[1]);
      } catch (e) {
        Promise.resolve().then(() => cb(e));
        return;
      }
      Promise.resolve().then(() => cb(null, filled));
    }
    var mod = {
      createHash: (alg) => new Hasher("hash", alg),
      createHmac: (alg, key) => new Hasher("hmac", alg, key),
      randomUUID: () => callHost("crypto.uuid"),
      randomBytes: randomBytes,
      randomFillSync: randomFillSync,
      randomFill: randomFill,
      randomInt: (min, max) => {
        if (max === undefined) {
          max = min;
          min = 0;
        }
        var r = randomBytes(4).readUInt32BE(0) / 4294967296;
        return min + Math.floor(r * (max - min));
      },
      getRandomValues: (arr) => {
        var bytes = randomBytes(arr.byteLength);
        new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(bytes);
        return arr;
      },
      // What the host digests.
      getHashes: () => ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"],
      timingSafeEqual: (a, b) => {
        var x = toBytes(a);
        var y = toBytes(b);
        if (x.length !== y.length) throw new RangeError("Input buffers must have the same byte length");
        var diff = 0;
        for (var i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
        return diff === 0;
      },
    };
    mod.webcrypto = { getRandomValues: mod.getRandomValues, randomUUID: mod.randomUUID };
    // Web Crypto's `subtle` (guest/crypto-subtle.js), loaded on first use.
    var subtle = () => S.load("crypto-subtle").subtle;
    Object.defineProperty(mod.webcrypto, "subtle", { enumerable: true, get: subtle });
    Object.defineProperty(mod, "subtle", { enumerable: true, get: subtle });
    // Signatures, ciphers, key derivation and keys (guest/crypto-more.js).
    return S.load("crypto-more").extend(mod);
  }
  var mod = makeCrypto();
  return { crypto: mod.webcrypto, modules: { crypto: mod } };
});
