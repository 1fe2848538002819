// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The Web platform's globals Node has and SDKs use: Event, EventTarget, DOMException,
// AbortController and AbortSignal (with `timeout`, `any`, `reason`), Blob, File, FormData and
// performance. Web streams are in guest/vendor/web-streams.js (web-streams-polyfill).
(function (S) {
  var G = S.G;
  var bytes = S.load("bytes");
  class DOMException extends Error {
    constructor(message, name) {
      super(message === undefined ? "" : String(message));
      this.name = name === undefined ? "Error" : String(name);
      this.code =
        { AbortError: 20, TimeoutError: 23, NotSupportedError: 9, InvalidStateError: 11 }[this.name] || 0;
    }
  }
  class Event {
    constructor(type, init) {
      this.type = String(type);
      this.bubbles = !!(init && init.bubbles);
      this.cancelable = !!(init && init.cancelable);
      this.defaultPrevented = false;
      this.timeStamp = Date.now();
      this.target = null;
      this.currentTarget = null;
    }
    preventDefault() {
      if (this.cancelable) this.defaultPrevented = true;
    }
    stopPropagation() {}
    stopImmediatePropagation() {
      this._stop = true;
    }
  }
  var LISTENERS = Symbol("listeners");
  class EventTarget {
    constructor() {
      Object.defineProperty(this, LISTENERS, { value: new Map() });
    }
    addEventListener(type, listener, options) {
      if (listener === null || listener === undefined) return;
      var list = this[LISTENERS].get(type) || [];
      if (list.some((l) => l.listener === listener)) return;
      var once = !!(options && typeof options === "object" && options.once);
      list.push({ listener: listener, once: once });
      this[LISTENERS].set(type, list);
      var signal = options && typeof options === "object" ? options.signal : undefined;
      if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, listener));
    }
    removeEventListener(type, listener) {
      var list = this[LISTENERS].get(type);
      if (list)
        this[LISTENERS].set(
          type,
          list.filter((l) => l.listener !== listener),
        );
    }
    dispatchEvent(event) {
      event.target = this;
      event.currentTarget = this;
      var handler = this["on" + event.type];
      var list = (this[LISTENERS].get(event.type) || []).slice();
      if (typeof handler === "function") handler.call(this, event);
      for (var l of list) {
        if (l.once) this.removeEventListener(event.type, l.listener);
        if (typeof l.listener === "function") l.listener.call(this, event);
        else if (l.listener && typeof l.listener.handleEvent === "function") l.listener.handleEvent(event);
        if (event._stop) break;
      }
      return !event.defaultPrevented;
    }
  }
  function abortError(reason) {
    return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
  }
  class AbortSignal extends EventTarget {
    constructor() {
      super();
      this.aborted = false;
      this.reason = undefined;
      this.onabort = null;
    }
    throwIfAborted() {
      if (this.aborted) throw this.reason;
    }
    static abort(reason) {
      var signal = new AbortSignal();
      signalAbort(signal, abortError(reason));
      return signal;
    }
    static timeout(ms) {
      var signal = new AbortSignal();
      G.setTimeout(
        () =>
          signalAbort(signal, new DOMException("The operation was aborted due to timeout", "TimeoutError")),
        ms,
      );
      return signal;
    }
    static any(signals) {
      var signal = new AbortSignal();
      for (var s of signals) {
        if (s.aborted) {
          signalAbort(signal, s.reason);
          return signal;
        }
      }
      for (var each of signals) {
        ((s) => s.addEventListener("abort", () => signalAbort(signal, s.reason)))(each);
      }
      return signal;
    }
  }
  function signalAbort(signal, reason) {
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason;
    signal.dispatchEvent(new Event("abort"));
  }
  class AbortController {
    constructor() {
      this.signal = new AbortSignal();
    }
    abort(reason) {
      signalAbort(this.signal, abortError(reason));
    }
  }

  // Blob and File hold their bytes in the guest; `stream()` needs the web streams.
  function partBytes(part) {
    if (part instanceof Blob) return part._bytes;
    if (typeof part === "string") return bytes.utf8Encode(part);
    return bytes.toBytes(part);
  }
  class Blob {
    constructor(parts, options) {
      var chunks = (parts || []).map(partBytes);
      var size = chunks.reduce((n, c) => n + c.length, 0);
      var all = new Uint8Array(size);
      var at = 0;
      for (var c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      this._bytes = all;
      this.type = options && options.type ? String(options.type).toLowerCase() : "";
    }
    get size() {
      return this._bytes.length;
    }
    arrayBuffer() {
      return Promise.resolve(this._bytes.slice().buffer);
    }
    bytes() {
      return Promise.resolve(this._bytes.slice());
    }
    text() {
      return Promise.resolve(bytes.utf8Decode(this._bytes));
    }
    slice(start, end, type) {
      var blob = new Blob([], { type: type });
      blob._bytes = this._bytes.slice(start, end);
      return blob;
    }
    stream() {
      var data = this._bytes;
      return new G.ReadableStream({
        start: (controller) => {
          if (data.length > 0) controller.enqueue(data.slice());
          controller.close();
        },
      });
    }
    get [Symbol.toStringTag]() {
      return "Blob";
    }
  }
  class File extends Blob {
    constructor(parts, name, options) {
      super(parts, options);
      this.name = String(name);
      this.lastModified =
        options && options.lastModified !== undefined ? Number(options.lastModified) : Date.now();
    }
    get [Symbol.toStringTag]() {
      return "File";
    }
  }

  function formValue(value, filename) {
    if (value instanceof Blob) {
      if (value instanceof File && filename === undefined) return value;
      return new File([value], filename !== undefined ? filename : "blob", { type: value.type });
    }
    return String(value);
  }
  class FormData {
    constructor() {
      this._entries = [];
    }
    append(name, value, filename) {
      this._entries.push([String(name), formValue(value, filename)]);
    }
    set(name, value, filename) {
      var key = String(name);
      var entry = [key, formValue(value, filename)];
      var at = this._entries.findIndex((e) => e[0] === key);
      this._entries = this._entries.filter((e) => e[0] !== key);
      this._entries.splice(at === -1 ? this._entries.length : at, 0, entry);
    }
    get(name) {
      var found = this._entries.find((e) => e[0] === String(name));
      return found ? found[1] : null;
    }
    getAll(name) {
      return this._entries.filter((e) => e[0] === String(name)).map((e) => e[1]);
    }
    has(name) {
      return this._entries.some((e) => e[0] === String(name));
    }
    delete(name) {
      this._entries = this._entries.filter((e) => e[0] !== String(name));
    }
    forEach(fn, thisArg) {
      for (var e of this._entries) fn.call(thisArg, e[1], e[0], this);
    }
    entries() {
      return this._entries.slice()[Symbol.iterator]();
    }
    keys() {
      return this._entries.map((e) => e[0])[Symbol.iterator]();
    }
    values() {
      return this._entries.map((e) => e[1])[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    get [Symbol.toStringTag]() {
      return "FormData";
    }
  }
  // The multipart/form-data encoding of a FormData (what fetch sends for one).
  function encodeForm(form) {
    var boundary = "----hookline" + S.load("crypto").modules.crypto.randomBytes(12).toString("hex");
    var parts = [];
    var escape = (s) => s.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
    for (var [name, value] of form._entries) {
      var head = "--" + boundary + '\r\nContent-Disposition: form-data; name="' + escape(name) + '"';
      if (value instanceof File) {
        head += '; filename="' + escape(value.name) + '"\r\nContent-Type: ';
        head += (value.type || "application/octet-stream") + "\r\n\r\n";
        parts.push(head, value._bytes, "\r\n");
      } else parts.push(head + "\r\n\r\n" + value.replace(/\r?\n/g, "\r\n") + "\r\n");
    }
    parts.push("--" + boundary + "--\r\n");
    return { bytes: new Blob(parts)._bytes, type: "multipart/form-data; boundary=" + boundary };
  }

  // performance: now() counts from the sandbox's start; marks and measures are kept in a list.
  var timeOrigin = Date.now();
  var entries = [];
  var performance = {
    timeOrigin: timeOrigin,
    now: () => Date.now() - timeOrigin,
    mark: (name, options) => {
      var t = options && options.startTime !== undefined ? options.startTime : performance.now();
      var entry = { name: String(name), entryType: "mark", startTime: t, duration: 0, detail: null };
      entries.push(entry);
      return entry;
    },
    measure: (name, start, end) => {
      var at = (m, fallback) => {
        if (m === undefined) return fallback;
        if (typeof m === "number") return m;
        var found = entries.filter((e) => e.name === m && e.entryType === "mark").pop();
        if (!found) throw new DOMException("The mark '" + m + "' does not exist.", "SyntaxError");
        return found.startTime;
      };
      var opts = start && typeof start === "object" ? start : undefined;
      var from = at(opts ? opts.start : start, 0);
      var to = at(opts ? opts.end : end, performance.now());
      var entry = {
        name: String(name),
        entryType: "measure",
        startTime: from,
        duration: to - from,
        detail: null,
      };
      entries.push(entry);
      return entry;
    },
    getEntries: () => entries.slice(),
    getEntriesByName: (name, type) =>
      entries.filter((e) => e.name === name && (!type || e.entryType === type)),
    getEntriesByType: (type) => entries.filter((e) => e.entryType === type),
    clearMarks: (name) => {
      entries = entries.filter((e) => e.entryType !== "mark" || (name !== undefined && e.name !== name));
    },
    clearMeasures: (name) => {
      entries = entries.filter((e) => e.entryType !== "measure" || (name !== undefined && e.name !== name));
    },
    toJSON: () => ({ timeOrigin: timeOrigin }),
  };
  var streams = () => S.load("vendor/web-streams").modules["web-streams"];
  var web = {
    DOMException: DOMException,
    Event: Event,
    EventTarget: EventTarget,
    AbortController: AbortController,
    AbortSignal: AbortSignal,
    Blob: Blob,
    File: File,
    FormData: FormData,
    performance: performance,
    encodeForm: encodeForm,
    modules: {
      perf_hooks: { performance: performance, PerformanceObserver: function PerformanceObserver() {} },
    },
  };
  for (var name of [
    "ReadableStream",
    "WritableStream",
    "TransformStream",
    "ReadableStreamDefaultReader",
    "WritableStreamDefaultWriter",
    "ByteLengthQueuingStrategy",
    "CountQueuingStrategy",
  ])
    ((n) => Object.defineProperty(web, n, { enumerable: true, get: () => streams()[n] }))(name);
  var streamWeb = {};
  for (var n of Object.keys(web))
    if (/Stream|Strategy|Reader|Writer/.test(n))
      ((k) => Object.defineProperty(streamWeb, k, { enumerable: true, get: () => web[k] }))(n);
  web.modules["stream/web"] = streamWeb;
  return web;
});
