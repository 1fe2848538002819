// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// fetch, Headers and Response, through the host's fetch bridge.
(function (S) {
  var urls = S.load("url");
  var asyncHost = S.load("host").asyncHost;
  var bytes = S.load("bytes");
  var base64Encode = bytes.base64Encode;
  var base64Decode = bytes.base64Decode;
  var utf8Encode = bytes.utf8Encode;
  var utf8Decode = bytes.utf8Decode;
  var toBytes = bytes.toBytes;
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
  var Headers = makeHeaders();
  function bodyToWire(body) {
    if (body === undefined || body === null) return {};
    if (typeof body === "string") return { body: body, bodyEncoding: "utf8" };
    if (body instanceof urls.URLSearchParams)
      return {
        body: body.toString(),
        bodyEncoding: "utf8",
        type: "application/x-www-form-urlencoded;charset=UTF-8",
      };
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
      return { body: base64Encode(toBytes(body), false), bodyEncoding: "base64" };
    // Blob and FormData (guest/web.js) are sent as bytes, a FormData as multipart/form-data.
    var tag = Object.prototype.toString.call(body);
    if (tag === "[object FormData]") {
      var form = S.load("web").encodeForm(body);
      return { body: base64Encode(form.bytes, false), bodyEncoding: "base64", type: form.type };
    }
    if (tag === "[object Blob]" || tag === "[object File]")
      return Object.assign(
        { body: base64Encode(body._bytes, false), bodyEncoding: "base64" },
        body.type ? { type: body.type } : {},
      );
    return { body: String(body), bodyEncoding: "utf8" };
  }
  class Response {
    // WHATWG's `new Response(body, init)`; fetch() builds its answers with fromWire().
    constructor(body, init) {
      var options = init || {};
      var wire = bodyToWire(body);
      var headers = {};
      new Headers(options.headers || {}).forEach((v, k) => {
        headers[k] = v;
      });
      if (wire.type && !headers["content-type"]) headers["content-type"] = wire.type;
      this._init({
        status: options.status === undefined ? 200 : Number(options.status),
        statusText: options.statusText,
        headers: headers,
        body: wire.body === undefined ? "" : wire.body,
        bodyEncoding: wire.bodyEncoding || "utf8",
      });
    }
    static fromWire(wire) {
      var response = Object.create(Response.prototype);
      response._init(wire);
      return response;
    }
    _init(wire) {
      this._wire = wire;
      this.status = wire.status;
      this.statusText = wire.statusText || "";
      this.ok = wire.status >= 200 && wire.status < 300;
      this.headers = new Headers(wire.headers);
      this.url = wire.url || "";
      this.redirected = false;
      this.bodyUsed = false;
    }
    _bytes() {
      return this._wire.bodyEncoding === "base64"
        ? base64Decode(this._wire.body)
        : utf8Encode(this._wire.body);
    }
    text() {
      this.bodyUsed = true;
      return Promise.resolve(
        this._wire.bodyEncoding === "base64" ? utf8Decode(this._bytes()) : this._wire.body,
      );
    }
    json() {
      return this.text().then(S.jsonParse);
    }
    // The body as a web stream (one chunk: the bridge delivers it whole), for `pipeline(res.body, ...)`
    // and `Readable.fromWeb(res.body)`.
    get body() {
      if (this._body === undefined) {
        var chunk = this._bytes();
        var reader = {
          read: () => {
            var value = chunk;
            chunk = null;
            return Promise.resolve(
              value === null ? { done: true, value: undefined } : { done: false, value: value },
            );
          },
          releaseLock: () => {},
          cancel: () => Promise.resolve(),
        };
        this._body = {
          locked: false,
          getReader: () => reader,
          cancel: () => Promise.resolve(),
          [Symbol.asyncIterator]: () => ({
            next: reader.read,
            return: () => Promise.resolve({ done: true }),
          }),
        };
      }
      return this._body;
    }
    blob() {
      this.bodyUsed = true;
      return Promise.resolve(new S.G.Blob([this._bytes()], { type: this.headers.get("content-type") || "" }));
    }
    arrayBuffer() {
      this.bodyUsed = true;
      var b = this._bytes();
      return Promise.resolve(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    }
  }
  function fetch(input, init) {
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
    new Headers(init.headers || (input && input.headers) || {}).forEach((v, k) => {
      headers[k] = v;
    });
    var wire = bodyToWire(init.body);
    if (wire.type && !headers["content-type"]) headers["content-type"] = wire.type;
    var signal = init.signal || (input && input.signal);
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    var answer = asyncHost("fetch", {
      url: new urls.URL(url).href,
      method: String(init.method || (input && input.method) || "GET").toUpperCase(),
      headers: headers,
      body: wire.body,
      bodyEncoding: wire.bodyEncoding,
    }).then((res) => {
      res.url = url;
      return Response.fromWire(res);
    });
    if (!signal || typeof signal.addEventListener !== "function") return answer;
    // An abort rejects the call at once (the host's request runs on to its own end or deadline).
    return new Promise((resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      answer.then(resolve, reject);
    });
  }
  return { fetch: fetch, Headers: Headers, Response: Response };
});
