// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Text, base64 and bytes: Buffer, TextEncoder, TextDecoder, atob, btoa.
(function (S) {
  function utf8Encode(str) {
    var out = [];
    for (var i = 0; i < str.length; i++) {
      var c = str.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
        var d = str.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        } else c = 0xfffd;
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
  function utf8Decode(bytes) {
    var out = "";
    var i = 0;
    while (i < bytes.length) {
      var b = bytes[i++];
      var c;
      if (b < 0x80) c = b;
      else if (b >= 0xc0 && b < 0xe0 && i < bytes.length) c = ((b & 31) << 6) | (bytes[i++] & 63);
      else if (b >= 0xe0 && b < 0xf0 && i + 1 < bytes.length) {
        c = ((b & 15) << 12) | ((bytes[i] & 63) << 6) | (bytes[i + 1] & 63);
        i += 2;
      } else if (b >= 0xf0 && i + 2 < bytes.length) {
        c = ((b & 7) << 18) | ((bytes[i] & 63) << 12) | ((bytes[i + 1] & 63) << 6) | (bytes[i + 2] & 63);
        i += 3;
      } else c = 0xfffd;
      if (c > 0xffff) {
        c -= 0x10000;
        out += String.fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
      } else out += String.fromCharCode(c);
    }
    return out;
  }
  var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function base64Encode(bytes, url) {
    var out = "";
    for (var i = 0; i < bytes.length; i += 3) {
      var n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : url ? "" : "=";
      out += i + 2 < bytes.length ? B64[n & 63] : url ? "" : "=";
    }
    return url ? out.replace(/\+/g, "-").replace(/\//g, "_") : out;
  }
  function base64Decode(str) {
    var clean = String(str)
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .replace(/[^A-Za-z0-9+/]/g, "");
    var out = [];
    var bits = 0;
    var acc = 0;
    for (var i = 0; i < clean.length; i++) {
      acc = (acc << 6) | B64.indexOf(clean[i]);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push((acc >> bits) & 255);
      }
    }
    return new Uint8Array(out);
  }
  function toBytes(data, encoding) {
    if (data instanceof Uint8Array) return data;
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (typeof data === "string") return encodeString(data, encoding);
    if (Array.isArray(data)) return new Uint8Array(data);
    throw new TypeError("Expected a string, Buffer, ArrayBuffer or array");
  }
  function encodeString(str, encoding) {
    var enc = String(encoding || "utf8").toLowerCase();
    if (enc === "utf8" || enc === "utf-8") return utf8Encode(str);
    if (enc === "base64" || enc === "base64url") return base64Decode(str);
    if (enc === "hex") {
      var bytes = new Uint8Array(Math.floor(str.length / 2));
      for (var i = 0; i < bytes.length; i++) bytes[i] = parseInt(str.substr(i * 2, 2), 16);
      return bytes;
    }
    if (enc === "latin1" || enc === "binary" || enc === "ascii") {
      var b = new Uint8Array(str.length);
      for (var j = 0; j < str.length; j++) b[j] = str.charCodeAt(j) & 255;
      return b;
    }
    if (enc === "utf16le" || enc === "ucs2" || enc === "ucs-2" || enc === "utf-16le") {
      var u = new Uint8Array(str.length * 2);
      for (var k = 0; k < str.length; k++) {
        u[k * 2] = str.charCodeAt(k) & 255;
        u[k * 2 + 1] = str.charCodeAt(k) >> 8;
      }
      return u;
    }
    throw new TypeError("Unknown encoding: " + encoding);
  }
  function decodeBytes(bytes, encoding) {
    var enc = String(encoding || "utf8").toLowerCase();
    if (enc === "utf8" || enc === "utf-8") return utf8Decode(bytes);
    if (enc === "base64") return base64Encode(bytes, false);
    if (enc === "base64url") return base64Encode(bytes, true);
    if (enc === "hex") {
      var s = "";
      for (var i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
      return s;
    }
    if (enc === "latin1" || enc === "binary" || enc === "ascii") {
      var out = "";
      for (var j = 0; j < bytes.length; j++)
        out += String.fromCharCode(enc === "ascii" ? bytes[j] & 127 : bytes[j]);
      return out;
    }
    if (enc === "utf16le" || enc === "ucs2" || enc === "ucs-2" || enc === "utf-16le") {
      var r = "";
      for (var k = 0; k + 1 < bytes.length; k += 2) r += String.fromCharCode(bytes[k] | (bytes[k + 1] << 8));
      return r;
    }
    throw new TypeError("Unknown encoding: " + encoding);
  }

  // Node's "base64url" encoding, which the `buffer` package does not know.
  function addBase64url(Buffer) {
    var isUrl = (enc) => typeof enc === "string" && enc.toLowerCase() === "base64url";
    var proto = Buffer.prototype;
    var toString = proto.toString;
    proto.toString = function (enc, start, end) {
      if (!isUrl(enc)) return toString.apply(this, arguments);
      return base64Encode(this.subarray(start || 0, end === undefined ? this.length : end), true);
    };
    var write = proto.write;
    proto.write = function (str, offset, length, enc) {
      var encoding = [offset, length, enc].find((a) => typeof a === "string");
      if (!isUrl(encoding)) return write.apply(this, arguments);
      var at = typeof offset === "number" ? offset : 0;
      var decoded = base64Decode(str);
      var n = Math.min(decoded.length, this.length - at, typeof length === "number" ? length : Infinity);
      this.set(decoded.subarray(0, n), at);
      return n;
    };
    var from = Buffer.from;
    Buffer.from = function (value, enc) {
      if (typeof value === "string" && isUrl(enc)) return from.call(Buffer, base64Decode(value));
      return from.apply(Buffer, arguments);
    };
    var byteLength = Buffer.byteLength;
    Buffer.byteLength = function (value, enc) {
      if (typeof value === "string" && isUrl(enc)) return base64Decode(value).length;
      return byteLength.apply(Buffer, arguments);
    };
    var isEncoding = Buffer.isEncoding;
    Buffer.isEncoding = (enc) => isUrl(enc) || isEncoding(enc);
  }
  // Node's undocumented per-encoding methods (`latin1Slice(start, end)`, `utf8Write(string, offset,
  // length)`...), which ssh2 calls on every packet.
  function addEncodingMethods(Buffer) {
    var proto = Buffer.prototype;
    for (var enc of ["utf8", "latin1", "ascii", "hex", "ucs2", "base64", "base64url"]) {
      ((enc) => {
        proto[enc + "Slice"] = function (start, end) {
          return this.toString(enc, start === undefined ? 0 : start, end === undefined ? this.length : end);
        };
        proto[enc + "Write"] = function (string, offset, length) {
          var at = offset === undefined ? 0 : offset;
          return this.write(string, at, length === undefined ? this.length - at : length, enc);
        };
      })(enc);
    }
  }
  // Buffer is the `buffer` package's (guest/vendor/buffer.js): Node's API, range checks included.
  var bufferModule = S.load("vendor/buffer").modules.buffer;
  var Buffer = bufferModule.Buffer;
  addBase64url(Buffer);
  addEncodingMethods(Buffer);
  var btoa = (s) => base64Encode(encodeString(String(s), "latin1"), false);
  var atob = (s) => decodeBytes(base64Decode(s), "latin1");
  var buffer = {
    Buffer: Buffer,
    SlowBuffer: bufferModule.SlowBuffer,
    INSPECT_MAX_BYTES: bufferModule.INSPECT_MAX_BYTES,
    kMaxLength: bufferModule.kMaxLength,
    kStringMaxLength: 536870888,
    constants: { MAX_LENGTH: bufferModule.kMaxLength, MAX_STRING_LENGTH: 536870888 },
    atob: atob,
    btoa: btoa,
    isUtf8: (input) => utf8Decode(toBytes(input)).indexOf("\ufffd") === -1,
  };
  // The globals of the same names (guest/web.js, compiled on first use).
  Object.defineProperty(buffer, "Blob", { enumerable: true, get: () => S.G.Blob });
  Object.defineProperty(buffer, "File", { enumerable: true, get: () => S.G.File });
  buffer.default = buffer;
  return {
    utf8Encode: utf8Encode,
    utf8Decode: utf8Decode,
    base64Encode: base64Encode,
    base64Decode: base64Decode,
    toBytes: toBytes,
    encodeString: encodeString,
    decodeBytes: decodeBytes,
    Buffer: Buffer,
    TextEncoder: class TextEncoder {
      get encoding() {
        return "utf-8";
      }
      encode(s) {
        return utf8Encode(String(s === undefined ? "" : s));
      }
    },
    TextDecoder: class TextDecoder {
      get encoding() {
        return "utf-8";
      }
      decode(bytes) {
        return bytes === undefined ? "" : utf8Decode(toBytes(bytes));
      }
    },
    btoa: btoa,
    atob: atob,
    modules: { buffer: buffer },
  };
});
