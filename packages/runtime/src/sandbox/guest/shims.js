// Guest-side shims, evaluated inside every QuickJS context (no host globals exist there).
// This file is the body of `function (hostCall, hostAsync, cfg)`: it installs globals lazily and
// returns the built-in module table. It is plain ES2020 run by QuickJS, never by Node.

var G = globalThis;

function lazyGlobal(name, make) {
  Object.defineProperty(G, name, {
    configurable: true,
    enumerable: false,
    get: () => {
      var value = make();
      Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
      return value;
    },
    set: (value) => {
      Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
    },
  });
}

function callHost(op, arg) {
  var out = hostCall(op, JSON.stringify(arg === undefined ? null : arg));
  return out === "" ? undefined : JSON.parse(out);
}

function asyncHost(op, arg) {
  return hostAsync(op, JSON.stringify(arg === undefined ? null : arg)).then((out) =>
    out === "" ? undefined : JSON.parse(out),
  );
}

// ---------- formatting (console, util.format) ----------
function inspect(value, depth) {
  if (depth === undefined) depth = 0;
  if (typeof value === "string") return depth === 0 ? value : JSON.stringify(value);
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
  if (typeof value === "symbol" || typeof value === "bigint") return String(value);
  if (value instanceof Error)
    return value.stack ? value.name + ": " + value.message + "\n" + value.stack : String(value);
  if (value === null || typeof value !== "object") return String(value);
  try {
    var seen = [];
    return JSON.stringify(value, (_key, v) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function") return "[Function]";
      if (v instanceof Map) return Object.fromEntries(v);
      if (v instanceof Set) return Array.from(v);
      if (v !== null && typeof v === "object") {
        if (seen.indexOf(v) !== -1) return "[Circular]";
        seen.push(v);
      }
      return v;
    });
  } catch (_e) {
    return String(value);
  }
}

function format() {
  var args = Array.prototype.slice.call(arguments);
  if (typeof args[0] === "string" && args[0].indexOf("%") !== -1) {
    var fmt = args.shift();
    var out = fmt.replace(/%[sdifjoO%]/g, (m) => {
      if (m === "%%") return "%";
      if (args.length === 0) return m;
      var a = args.shift();
      if (m === "%d" || m === "%i") return String(m === "%i" ? Math.trunc(Number(a)) : Number(a));
      if (m === "%f") return String(Number(a));
      if (m === "%j" || m === "%o" || m === "%O") return inspect(a, 1);
      return typeof a === "string" ? a : inspect(a, 1);
    });
    args.unshift(out);
  }
  return args.map((a) => inspect(a, 0)).join(" ");
}

// ---------- timers ----------
var timerSeq = 0;
var liveTimers = new Map();
function startTimer(fn, ms, args, repeat) {
  if (typeof fn !== "function") throw new TypeError("The callback must be a function");
  var id = ++timerSeq;
  var delay = Math.max(0, Number(ms) || 0);
  liveTimers.set(id, true);
  function tick() {
    asyncHost("sleep", delay).then(() => {
      if (!liveTimers.has(id)) return;
      if (!repeat) liveTimers.delete(id);
      fn.apply(undefined, args);
      if (repeat && liveTimers.has(id)) tick();
    });
  }
  tick();
  return id;
}
G.setTimeout = function (fn, ms) {
  return startTimer(fn, ms, Array.prototype.slice.call(arguments, 2), false);
};
G.setInterval = function (fn, ms) {
  return startTimer(fn, ms, Array.prototype.slice.call(arguments, 2), true);
};
G.setImmediate = function (fn) {
  return startTimer(fn, 0, Array.prototype.slice.call(arguments, 1), false);
};
G.clearTimeout =
  G.clearInterval =
  G.clearImmediate =
    (id) => {
      liveTimers.delete(typeof id === "object" && id !== null ? id.id : id);
    };
G.queueMicrotask = (fn) => {
  Promise.resolve().then(fn);
};

// ---------- text, base64, bytes ----------
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

function makeBuffer() {
  class Buffer extends Uint8Array {
    static from(data, encodingOrOffset, length) {
      if (data instanceof ArrayBuffer) return new Buffer(data, encodingOrOffset || 0, length);
      if (data && data.type === "Buffer" && Array.isArray(data.data)) return Buffer.from(data.data);
      var bytes = toBytes(data, encodingOrOffset);
      var buf = new Buffer(bytes.length);
      buf.set(bytes);
      return buf;
    }
    static alloc(size, fill) {
      var buf = new Buffer(size);
      if (fill !== undefined) buf.fill(typeof fill === "string" ? fill.charCodeAt(0) : fill);
      return buf;
    }
    static allocUnsafe(size) {
      return new Buffer(size);
    }
    static isBuffer(value) {
      return value instanceof Buffer;
    }
    static isEncoding(enc) {
      return /^(utf-?8|base64(url)?|hex|latin1|binary|ascii|ucs-?2|utf-?16le)$/i.test(String(enc));
    }
    static byteLength(value, encoding) {
      return typeof value === "string" ? encodeString(value, encoding).length : toBytes(value).byteLength;
    }
    static concat(list, total) {
      var length = total === undefined ? list.reduce((n, b) => n + b.length, 0) : total;
      var out = Buffer.alloc(length);
      var offset = 0;
      for (var b of list) {
        out.set(b.subarray(0, Math.max(0, length - offset)), offset);
        offset += b.length;
        if (offset >= length) break;
      }
      return out;
    }
    static compare(a, b) {
      return a.compare(b);
    }
    toString(encoding, start, end) {
      return decodeBytes(this.subarray(start || 0, end === undefined ? this.length : end), encoding);
    }
    toJSON() {
      return { type: "Buffer", data: Array.from(this) };
    }
    equals(other) {
      return this.compare(other) === 0;
    }
    compare(other) {
      var n = Math.min(this.length, other.length);
      for (var i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
      return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
    }
    write(str, offset, length, encoding) {
      if (typeof offset === "string") {
        encoding = offset;
        offset = 0;
      }
      var bytes = encodeString(str, encoding);
      var n = Math.min(bytes.length, length === undefined ? this.length - (offset || 0) : length);
      this.set(bytes.subarray(0, n), offset || 0);
      return n;
    }
    slice(start, end) {
      return this.subarray(start, end);
    }
    subarray(start, end) {
      var view = Uint8Array.prototype.subarray.call(this, start, end);
      return new Buffer(view.buffer, view.byteOffset, view.length);
    }
    readUInt8(o) {
      return this[o || 0];
    }
    readUInt32BE(o) {
      return new DataView(this.buffer, this.byteOffset).getUint32(o || 0, false);
    }
    readInt32BE(o) {
      return new DataView(this.buffer, this.byteOffset).getInt32(o || 0, false);
    }
    readUInt16BE(o) {
      return new DataView(this.buffer, this.byteOffset).getUint16(o || 0, false);
    }
    includes(value) {
      return this.indexOf(value) !== -1;
    }
    indexOf(value, from) {
      if (typeof value === "number") return Uint8Array.prototype.indexOf.call(this, value, from);
      var needle = toBytes(value);
      outer: for (var i = from || 0; i + needle.length <= this.length; i++) {
        for (var j = 0; j < needle.length; j++) if (this[i + j] !== needle[j]) continue outer;
        return i;
      }
      return -1;
    }
  }
  return Buffer;
}
lazyGlobal("Buffer", makeBuffer);
G.btoa = (s) => base64Encode(encodeString(String(s), "latin1"), false);
G.atob = (s) => decodeBytes(base64Decode(s), "latin1");
lazyGlobal(
  "TextEncoder",
  () =>
    class TextEncoder {
      get encoding() {
        return "utf-8";
      }
      encode(s) {
        return utf8Encode(String(s === undefined ? "" : s));
      }
    },
);
lazyGlobal(
  "TextDecoder",
  () =>
    class TextDecoder {
      get encoding() {
        return "utf-8";
      }
      decode(bytes) {
        return bytes === undefined ? "" : utf8Decode(toBytes(bytes));
      }
    },
);

// ---------- structuredClone ----------
G.structuredClone = function structuredClone(value) {
  var seen = new Map();
  function clone(v) {
    if (v === null || typeof v !== "object") {
      if (typeof v === "function" || typeof v === "symbol") throw new TypeError("could not be cloned");
      return v;
    }
    if (seen.has(v)) return seen.get(v);
    var out;
    if (v instanceof Date) out = new Date(v.getTime());
    else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
    else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
    else if (v instanceof Map) {
      out = new Map();
      seen.set(v, out);
      v.forEach((x, k) => out.set(clone(k), clone(x)));
      return out;
    } else if (v instanceof Set) {
      out = new Set();
      seen.set(v, out);
      v.forEach((x) => out.add(clone(x)));
      return out;
    } else if (Array.isArray(v)) {
      out = [];
      seen.set(v, out);
      for (var i = 0; i < v.length; i++) out[i] = clone(v[i]);
      return out;
    } else {
      out = {};
      seen.set(v, out);
      for (var k of Object.keys(v)) out[k] = clone(v[k]);
      return out;
    }
    seen.set(v, out);
    return out;
  }
  return clone(value);
};

// ---------- URL, URLSearchParams (parsing is done by the host's WHATWG parser) ----------
function makeURLSearchParams() {
  function enc(s) {
    return encodeURIComponent(s)
      .replace(/%20/g, "+")
      .replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  }
  function dec(s) {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "));
    } catch (_e) {
      return s;
    }
  }
  class URLSearchParams {
    constructor(init) {
      this._list = [];
      this._url = null;
      if (typeof init === "string") {
        var s = init.charAt(0) === "?" ? init.slice(1) : init;
        for (var part of s.split("&")) {
          if (part === "") continue;
          var eq = part.indexOf("=");
          this._list.push(eq === -1 ? [dec(part), ""] : [dec(part.slice(0, eq)), dec(part.slice(eq + 1))]);
        }
      } else if (init && typeof init[Symbol.iterator] === "function") {
        for (var pair of init) this._list.push([String(pair[0]), String(pair[1])]);
      } else if (init && typeof init === "object") {
        for (var key of Object.keys(init)) this._list.push([key, String(init[key])]);
      }
    }
    _changed() {
      if (this._url) this._url._setSearch(this.toString());
    }
    append(k, v) {
      this._list.push([String(k), String(v)]);
      this._changed();
    }
    delete(k) {
      this._list = this._list.filter((p) => p[0] !== String(k));
      this._changed();
    }
    get(k) {
      var p = this._list.find((x) => x[0] === String(k));
      return p ? p[1] : null;
    }
    getAll(k) {
      return this._list.filter((x) => x[0] === String(k)).map((x) => x[1]);
    }
    has(k) {
      return this._list.some((x) => x[0] === String(k));
    }
    set(k, v) {
      var key = String(k);
      var i = this._list.findIndex((x) => x[0] === key);
      if (i === -1) this._list.push([key, String(v)]);
      else {
        this._list[i][1] = String(v);
        this._list = this._list.filter((x, j) => j <= i || x[0] !== key);
      }
      this._changed();
    }
    sort() {
      this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this._changed();
    }
    forEach(fn, thisArg) {
      for (var p of this._list) fn.call(thisArg, p[1], p[0], this);
    }
    keys() {
      return this._list.map((p) => p[0])[Symbol.iterator]();
    }
    values() {
      return this._list.map((p) => p[1])[Symbol.iterator]();
    }
    entries() {
      return this._list.map((p) => [p[0], p[1]])[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    get size() {
      return this._list.length;
    }
    toString() {
      return this._list.map((p) => enc(p[0]) + "=" + enc(p[1])).join("&");
    }
  }
  return URLSearchParams;
}
lazyGlobal("URLSearchParams", makeURLSearchParams);
function makeURL() {
  var FIELDS = [
    "href",
    "protocol",
    "username",
    "password",
    "host",
    "hostname",
    "port",
    "pathname",
    "search",
    "hash",
  ];
  class URL {
    constructor(input, base) {
      this._p = callHost("url", {
        input: String(input),
        base: base === undefined ? undefined : String(base),
      });
      this._sp = null;
    }
    static canParse(input, base) {
      try {
        new URL(input, base);
        return true;
      } catch (_e) {
        return false;
      }
    }
    _setSearch(search) {
      this._p = callHost("url.set", { href: this._p.href, field: "search", value: search });
    }
    get origin() {
      return this._p.origin;
    }
    get searchParams() {
      if (!this._sp) {
        this._sp = new G.URLSearchParams(this._p.search);
        this._sp._url = this;
      }
      return this._sp;
    }
    toString() {
      return this._p.href;
    }
    toJSON() {
      return this._p.href;
    }
  }
  FIELDS.forEach((field) => {
    Object.defineProperty(URL.prototype, field, {
      get: function () {
        return this._p[field];
      },
      set: function (value) {
        this._p = callHost("url.set", { href: this._p.href, field: field, value: String(value) });
        if (this._sp && field !== "search") this._sp = null;
        if (field === "search" || field === "href") this._sp = null;
      },
    });
  });
  return URL;
}
lazyGlobal("URL", makeURL);

// ---------- crypto ----------
function makeCrypto() {
  function digestOut(b64, encoding) {
    var bytes = G.Buffer.from(b64, "base64");
    return encoding ? bytes.toString(encoding) : bytes;
  }
  function Hasher(kind, algorithm, key) {
    this._kind = kind;
    this._alg = String(algorithm);
    this._key = key === undefined ? undefined : base64Encode(toBytes(key), false);
    this._parts = [];
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
  function randomBytes(n) {
    return G.Buffer.from(callHost("crypto.random", n), "base64");
  }
  var mod = {
    createHash: (alg) => new Hasher("hash", alg),
    createHmac: (alg, key) => new Hasher("hmac", alg, key),
    randomUUID: () => callHost("crypto.uuid"),
    randomBytes: randomBytes,
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
  return mod;
}
var cryptoModule;
function getCrypto() {
  if (!cryptoModule) cryptoModule = makeCrypto();
  return cryptoModule;
}
lazyGlobal("crypto", () => getCrypto().webcrypto);

// ---------- process ----------
G.process = {
  env: { PD_COMPONENT: cfg.id },
  platform: "linux",
  version: "v20.0.0",
  versions: { node: "20.0.0" },
  argv: [],
  cwd: () => "/",
  nextTick: function (fn) {
    var args = Array.prototype.slice.call(arguments, 1);
    Promise.resolve().then(() => {
      fn.apply(undefined, args);
    });
  },
  hrtime: Object.assign(
    () => {
      var t = Date.now();
      return [Math.floor(t / 1000), (t % 1000) * 1e6];
    },
    {
      bigint: () => BigInt(Date.now()) * 1000000n,
    },
  ),
  emitWarning: () => {},
};

// ---------- fetch ----------
function makeHeaders() {
  class Headers {
    constructor(init) {
      this._h = {};
      if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
      else if (Array.isArray(init)) for (var p of init) this.append(p[0], p[1]);
      else if (init) for (var k of Object.keys(init)) this.append(k, init[k]);
    }
    append(k, v) {
      var key = String(k).toLowerCase();
      this._h[key] = this._h[key] === undefined ? String(v) : this._h[key] + ", " + v;
    }
    set(k, v) {
      this._h[String(k).toLowerCase()] = String(v);
    }
    get(k) {
      var v = this._h[String(k).toLowerCase()];
      return v === undefined ? null : v;
    }
    has(k) {
      return this._h[String(k).toLowerCase()] !== undefined;
    }
    delete(k) {
      delete this._h[String(k).toLowerCase()];
    }
    forEach(fn) {
      for (var k of Object.keys(this._h)) fn(this._h[k], k, this);
    }
    entries() {
      return Object.entries(this._h)[Symbol.iterator]();
    }
    keys() {
      return Object.keys(this._h)[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  return Headers;
}
lazyGlobal("Headers", makeHeaders);
function bodyToWire(body) {
  if (body === undefined || body === null) return {};
  if (typeof body === "string") return { body: body, bodyEncoding: "utf8" };
  if (body instanceof G.URLSearchParams)
    return {
      body: body.toString(),
      bodyEncoding: "utf8",
      type: "application/x-www-form-urlencoded;charset=UTF-8",
    };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
    return { body: base64Encode(toBytes(body), false), bodyEncoding: "base64" };
  return { body: String(body), bodyEncoding: "utf8" };
}
class Response {
  constructor(wire) {
    this._wire = wire;
    this.status = wire.status;
    this.statusText = wire.statusText || "";
    this.ok = wire.status >= 200 && wire.status < 300;
    this.headers = new G.Headers(wire.headers);
    this.url = wire.url || "";
    this.redirected = false;
    this.bodyUsed = false;
  }
  _bytes() {
    return this._wire.bodyEncoding === "base64" ? base64Decode(this._wire.body) : utf8Encode(this._wire.body);
  }
  text() {
    this.bodyUsed = true;
    return Promise.resolve(
      this._wire.bodyEncoding === "base64" ? utf8Decode(this._bytes()) : this._wire.body,
    );
  }
  json() {
    return this.text().then(JSON.parse);
  }
  arrayBuffer() {
    this.bodyUsed = true;
    var b = this._bytes();
    return Promise.resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }
}
G.Response = Response;
G.fetch = function fetch(input, init) {
  init = init || {};
  var url =
    typeof input === "string"
      ? input
      : input && input.href
        ? input.href
        : input && input.url
          ? input.url
          : String(input);
  var headers = {};
  new G.Headers(init.headers || (input && input.headers) || {}).forEach((v, k) => {
    headers[k] = v;
  });
  var wire = bodyToWire(init.body);
  if (wire.type && !headers["content-type"]) headers["content-type"] = wire.type;
  return asyncHost("fetch", {
    url: new G.URL(url).href,
    method: String(init.method || (input && input.method) || "GET").toUpperCase(),
    headers: headers,
    body: wire.body,
    bodyEncoding: wire.bodyEncoding,
  }).then((res) => {
    res.url = url;
    return new Response(res);
  });
};

// ---------- @pipedream/platform ----------
class ConfigurationError extends Error {
  constructor(message) {
    super(message);
    this.name = "ConfigurationError";
  }
}
function stripUndefined(obj) {
  var out = {};
  for (var k of Object.keys(obj || {})) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
function axiosRequest($, config) {
  config = config || {};
  var url = config.url || "";
  if (config.baseURL && !/^https?:\/\//i.test(url))
    url = config.baseURL.replace(/\/+$/, "") + "/" + url.replace(/^\/+/, "");
  var params = stripUndefined(config.params);
  var u = new G.URL(url);
  for (var key of Object.keys(params)) {
    var v = params[key];
    if (Array.isArray(v)) for (var item of v) u.searchParams.append(key + "[]", item);
    else u.searchParams.append(key, typeof v === "object" && v !== null ? JSON.stringify(v) : v);
  }
  var headers = Object.assign({}, config.headers);
  var body;
  if (config.data !== undefined) {
    if (
      typeof config.data === "string" ||
      config.data instanceof G.URLSearchParams ||
      ArrayBuffer.isView(config.data)
    )
      body = config.data;
    else {
      body = JSON.stringify(config.data);
      var hasType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
      if (!hasType) headers["Content-Type"] = "application/json";
    }
  }
  if (config.auth)
    headers.Authorization = "Basic " + G.btoa(config.auth.username + ":" + config.auth.password);
  var method = String(config.method || "GET").toUpperCase();
  return G.fetch(u.href, { method: method, headers: headers, body: body }).then((res) =>
    res.text().then((text) => {
      var data = text;
      if (config.responseType !== "text") {
        try {
          data = text === "" ? "" : JSON.parse(text);
        } catch (_e) {
          data = text;
        }
      }
      var headersObj = {};
      res.headers.forEach((v, k) => (headersObj[k] = v));
      var response = {
        data: data,
        status: res.status,
        statusText: res.statusText,
        headers: headersObj,
        config: config,
      };
      var ok = config.validateStatus
        ? config.validateStatus(res.status)
        : res.status >= 200 && res.status < 300;
      if (!ok) {
        var err = new Error("Request failed with status code " + res.status);
        err.name = "AxiosError";
        err.response = response;
        err.status = res.status;
        if ($ && typeof $.export === "function") $.export("debug", { status: res.status, data: data });
        throw err;
      }
      return config.returnFullResponse ? response : data;
    }),
  );
}
function axios($, config) {
  return axiosRequest($, config);
}
axios.create = (defaults) => {
  function instance($, config) {
    var merged = Object.assign({}, defaults, config);
    merged.headers = Object.assign({}, defaults && defaults.headers, config && config.headers);
    return axiosRequest($, merged);
  }
  instance.create = axios.create;
  return instance;
};
var platform = {
  axios: axios,
  ConfigurationError: ConfigurationError,
  DEFAULT_POLLING_SOURCE_TIMER_INTERVAL: 60 * 15,
  default: undefined,
};
platform.default = platform;
function identity(x) {
  return x;
}
var pdTypes = { defineApp: identity, defineAction: identity, defineSource: identity };
pdTypes.default = pdTypes;

// ---------- small Node modules ----------
function makeEvents() {
  class EventEmitter {
    constructor() {
      this._events = {};
    }
    on(name, fn) {
      (this._events[name] = this._events[name] || []).push(fn);
      return this;
    }
    prependListener(name, fn) {
      (this._events[name] = this._events[name] || []).unshift(fn);
      return this;
    }
    once(name, fn) {
      var self = this;
      function wrapper() {
        self.off(name, wrapper);
        fn.apply(self, arguments);
      }
      wrapper.listener = fn;
      return this.on(name, wrapper);
    }
    off(name, fn) {
      var list = this._events[name] || [];
      this._events[name] = list.filter((l) => l !== fn && l.listener !== fn);
      return this;
    }
    removeAllListeners(name) {
      if (name === undefined) this._events = {};
      else delete this._events[name];
      return this;
    }
    emit(name) {
      var args = Array.prototype.slice.call(arguments, 1);
      var list = (this._events[name] || []).slice();
      if (name === "error" && list.length === 0)
        throw args[0] instanceof Error ? args[0] : new Error("Unhandled error");
      for (var fn of list) fn.apply(this, args);
      return list.length > 0;
    }
    listeners(name) {
      return (this._events[name] || []).slice();
    }
    listenerCount(name) {
      return (this._events[name] || []).length;
    }
    eventNames() {
      return Object.keys(this._events);
    }
    setMaxListeners() {
      return this;
    }
  }
  EventEmitter.prototype.addListener = EventEmitter.prototype.on;
  EventEmitter.prototype.removeListener = EventEmitter.prototype.off;
  EventEmitter.EventEmitter = EventEmitter;
  EventEmitter.default = EventEmitter;
  return EventEmitter;
}
function makeQuerystring() {
  var qs = {
    escape: encodeURIComponent,
    unescape: decodeURIComponent,
    stringify: (obj, sep, eq) => {
      sep = sep || "&";
      eq = eq || "=";
      return Object.keys(obj || {})
        .flatMap((k) => {
          var v = obj[k];
          var values = Array.isArray(v) ? v : [v];
          return values.map(
            (x) => encodeURIComponent(k) + eq + encodeURIComponent(x === undefined || x === null ? "" : x),
          );
        })
        .join(sep);
    },
    parse: (str, sep, eq) => {
      sep = sep || "&";
      eq = eq || "=";
      var out = {};
      String(str || "")
        .split(sep)
        .forEach((part) => {
          if (!part) return;
          var i = part.indexOf(eq);
          var k = decodeURIComponent((i === -1 ? part : part.slice(0, i)).replace(/\+/g, " "));
          var v = i === -1 ? "" : decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "));
          if (out[k] === undefined) out[k] = v;
          else if (Array.isArray(out[k])) out[k].push(v);
          else out[k] = [out[k], v];
        });
      return out;
    },
  };
  qs.encode = qs.stringify;
  qs.decode = qs.parse;
  qs.default = qs;
  return qs;
}
function makeUtil() {
  var util = {
    format: format,
    inspect: (v) => inspect(v, 1),
    promisify: (fn) =>
      function () {
        var args = Array.prototype.slice.call(arguments);
        return new Promise((resolve, reject) => {
          fn.apply(
            this,
            args.concat((err, value) => {
              if (err) reject(err);
              else resolve(value);
            }),
          );
        });
      },
    inherits: (ctor, superCtor) => {
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
      Object.setPrototypeOf(ctor, superCtor);
    },
    isDeepStrictEqual: (a, b) => inspect(a, 1) === inspect(b, 1),
    types: {
      isDate: (v) => v instanceof Date,
      isRegExp: (v) => v instanceof RegExp,
      isPromise: (v) => v instanceof Promise,
    },
    TextEncoder: G.TextEncoder,
    TextDecoder: G.TextDecoder,
  };
  util.default = util;
  return util;
}
function makeUrlModule() {
  var mod = {
    URL: G.URL,
    URLSearchParams: G.URLSearchParams,
    parse: (str) => {
      var u = new G.URL(str);
      return {
        href: u.href,
        protocol: u.protocol,
        host: u.host,
        hostname: u.hostname,
        port: u.port || null,
        pathname: u.pathname,
        search: u.search || null,
        query: u.search ? u.search.slice(1) : null,
        hash: u.hash || null,
        path: u.pathname + u.search,
      };
    },
    format: (u) => (typeof u === "string" ? u : u.href || String(u)),
  };
  mod.default = mod;
  return mod;
}

var builtinFactories = {
  crypto: getCrypto,
  buffer: () => ({ Buffer: G.Buffer, default: { Buffer: G.Buffer } }),
  url: makeUrlModule,
  querystring: makeQuerystring,
  util: makeUtil,
  events: makeEvents,
  process: () => G.process,
  timers: () => ({
    setTimeout: G.setTimeout,
    clearTimeout: G.clearTimeout,
    setInterval: G.setInterval,
    clearInterval: G.clearInterval,
    setImmediate: G.setImmediate,
  }),
  "@pipedream/platform": () => platform,
  "@pipedream/types": () => pdTypes,
};
var builtinCache = {};
function requireBuiltin(name) {
  var bare = String(name).indexOf("node:") === 0 ? String(name).slice(5) : String(name);
  if (!Object.hasOwn(builtinFactories, bare)) {
    var err = new Error('Module "' + name + '" is not available in the Hookline sandbox');
    err.code = "MODULE_NOT_AVAILABLE";
    throw err;
  }
  if (!builtinCache[bare]) builtinCache[bare] = builtinFactories[bare]();
  return builtinCache[bare];
}
