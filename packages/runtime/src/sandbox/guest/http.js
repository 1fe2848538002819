// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `http`, `https` and `http2` modules as clients: `request`/`get` give a `ClientRequest` whose
// body is sent, whole, when it ends, through the host's `http` bridge (the SSRF-guarded transport
// `fetch` uses); the answer comes back as an `IncomingMessage` (a Readable). Agents are accepted
// and subclassable (the host keeps its own connections). Servers are not available.
(function (S) {
  var Buffer = S.require("buffer").Buffer;
  var Writable = S.require("stream").Writable;
  var EventEmitter = S.require("events");
  var URL = S.require("url").URL;
  var msg = S.load("http-message");
  var net = S.load("net");
  var unavailable = S.load("unavailable").module;
  var tick = msg.tick;
  var coded = msg.coded;

  // EventEmitter's own state on `self`, whichever implementation sits behind require("events")
  // (a function constructor or a class, which cannot be called).
  function initEmitter(self) {
    try {
      EventEmitter.call(self);
    } catch (_e) {
      Object.assign(self, new EventEmitter());
    }
  }
  // A function constructor, so that `http.Agent.call(this, options)` and `class extends` both work.
  function makeAgent(protocol, defaultPort) {
    function Agent(options) {
      if (!(this instanceof Agent)) return new Agent(options);
      initEmitter(this);
      this.options = Object.assign({ path: null }, options || {});
      this.keepAlive = !!this.options.keepAlive;
      this.keepAliveMsecs = this.options.keepAliveMsecs || 1000;
      this.maxSockets = this.options.maxSockets || Infinity;
      this.maxFreeSockets = this.options.maxFreeSockets || 256;
      this.maxTotalSockets = this.options.maxTotalSockets || Infinity;
      this.scheduling = this.options.scheduling || "lifo";
      this.totalSocketCount = 0;
      this.sockets = {};
      this.freeSockets = {};
      this.requests = {};
      this.defaultPort = defaultPort;
      this.protocol = protocol;
    }
    Agent.prototype = Object.create(EventEmitter.prototype, {
      constructor: { value: Agent, writable: true, configurable: true },
    });
    Agent.defaultMaxSockets = Infinity;
    Agent.prototype.getName = function (options) {
      var o = options || {};
      return (
        (o.host || "localhost") +
        ":" +
        (o.port || "") +
        ":" +
        (o.localAddress || "") +
        (o.family ? ":" + o.family : "")
      );
    };
    Agent.prototype.destroy = function () {};
    Agent.prototype.keepSocketAlive = () => true;
    Agent.prototype.reuseSocket = () => {};
    Agent.prototype.addRequest = () => {};
    Agent.prototype.createConnection = function () {
      throw coded(
        Error,
        "ERR_NOT_AVAILABLE_IN_SANDBOX",
        "Agent.createConnection() is not available in the Hookline sandbox",
      );
    };
    return Agent;
  }

  var HOP = ["transfer-encoding", "connection", "keep-alive", "upgrade"];
  // Node's ClientRequest is an OutgoingMessage, not a stream.Writable (no auto-destroy on finish):
  // the writable surface is here, enough for `write`/`end`, `pipe()` into it and `finished()`.
  class ClientRequest extends EventEmitter {
    constructor(defaults, input, options, cb) {
      super();
      var o = requestOptions(defaults, input, options);
      if (typeof cb === "function") this.once("response", cb);
      this.agent = o.agent === false ? null : o.agent || defaults.globalAgent;
      this.method = String(o.method || "GET").toUpperCase();
      this.protocol = o.protocol;
      this.host = o.hostname;
      this.path = o.path || "/";
      this.aborted = false;
      this.reusedSocket = false;
      this.maxHeadersCount = null;
      this.timeout = undefined;
      this._headers = {};
      this._sent = false;
      this._ended = false;
      this._finished = false;
      this.destroyed = false;
      this.closed = false;
      this.errored = null;
      this._chunks = [];
      this._response = null;
      this._timer = 0;
      this._tls =
        o.protocol === "https:"
          ? net.tlsWire(Object.assign({}, this.agent ? this.agent.options : {}, o))
          : null;
      var port = o.port ? ":" + o.port : "";
      var hostname =
        o.hostname.indexOf(":") >= 0 && o.hostname[0] !== "[" ? "[" + o.hostname + "]" : o.hostname;
      this._url = o.protocol + "//" + hostname + port + this.path;
      var headers = o.headers || {};
      if (Array.isArray(headers))
        for (var i = 0; i + 1 < headers.length; i += 2) this.setHeader(headers[i], headers[i + 1]);
      else
        for (var name of Object.keys(headers))
          if (headers[name] !== undefined) this.setHeader(name, headers[name]);
      if (o.auth && !this.hasHeader("authorization"))
        this.setHeader("Authorization", "Basic " + Buffer.from(String(o.auth)).toString("base64"));
      this.socket = new msg.RequestSocket(this, o.protocol === "https:");
      if (o.timeout !== undefined) this.setTimeout(o.timeout);
      if (o.signal) this._watch(o.signal);
      tick(() => {
        if (!this.destroyed) this.emit("socket", this.socket);
      });
    }
    get connection() {
      return this.socket;
    }
    get headersSent() {
      return this._sent;
    }
    get finished() {
      return this._ended;
    }
    get writable() {
      return !this._ended && !this.destroyed;
    }
    get writableEnded() {
      return this._ended;
    }
    get writableFinished() {
      return this._finished;
    }
    get writableLength() {
      return 0;
    }
    get writableHighWaterMark() {
      return 16384;
    }
    get writableCorked() {
      return 0;
    }
    get writableObjectMode() {
      return false;
    }
    get writableNeedDrain() {
      return false;
    }
    cork() {}
    uncork() {}
    setDefaultEncoding() {
      return this;
    }
    write(chunk, encoding, cb) {
      if (typeof encoding === "function") {
        cb = encoding;
        encoding = undefined;
      }
      if (this._ended || this.destroyed) {
        var err = coded(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end");
        tick(() => {
          if (cb) cb(err);
          if (!this.destroyed) this.destroy(err);
        });
        return false;
      }
      if (chunk === null || chunk === undefined)
        throw coded(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream");
      this._chunks.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : Buffer.from(chunk));
      if (cb) tick(cb);
      return true;
    }
    end(chunk, encoding, cb) {
      if (typeof chunk === "function") {
        cb = chunk;
        chunk = undefined;
      } else if (typeof encoding === "function") {
        cb = encoding;
        encoding = undefined;
      }
      if (this._ended || this.destroyed) {
        if (cb) tick(cb);
        return this;
      }
      if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
      this._ended = true;
      if (cb) this.once("finish", cb);
      this._send();
      tick(() => {
        this._finished = true;
        this.emit("prefinish");
        this.emit("finish");
      });
      return this;
    }
    destroy(err) {
      if (this.destroyed) return this;
      this.destroyed = true;
      if (this._timer) S.G.clearTimeout(this._timer);
      var res = this._response;
      if (res && !res.complete && !res.destroyed) {
        res.aborted = true;
        res.emit("aborted");
        res.destroy(coded(Error, "ECONNRESET", "aborted"));
      }
      // Destroyed before an answer: what Node reports when the socket is torn down.
      if (!err && !res) err = coded(Error, "ECONNRESET", "socket hang up");
      if (err) this.errored = err;
      tick(() => {
        if (err) this.emit("error", err);
        this.closed = true;
        this.emit("close");
      });
      return this;
    }
    setHeader(name, value) {
      if (this._sent)
        throw coded(Error, "ERR_HTTP_HEADERS_SENT", "Cannot set headers after they are sent to the client");
      msg.validateHeaderName(name);
      msg.validateHeaderValue(name, value);
      this._headers[String(name).toLowerCase()] = [
        String(name),
        Array.isArray(value) ? value.map(String) : String(value),
      ];
      return this;
    }
    appendHeader(name, value) {
      var had = this._headers[String(name).toLowerCase()];
      if (!had) return this.setHeader(name, value);
      return this.setHeader(had[0], [].concat(had[1], value));
    }
    getHeader(name) {
      var entry = this._headers[String(name).toLowerCase()];
      return entry ? entry[1] : undefined;
    }
    getHeaders() {
      var out = Object.create(null);
      for (var key of Object.keys(this._headers)) out[key] = this._headers[key][1];
      return out;
    }
    getHeaderNames() {
      return Object.keys(this._headers);
    }
    getRawHeaderNames() {
      return Object.keys(this._headers).map((k) => this._headers[k][0]);
    }
    hasHeader(name) {
      return this._headers[String(name).toLowerCase()] !== undefined;
    }
    removeHeader(name) {
      if (this._sent)
        throw coded(
          Error,
          "ERR_HTTP_HEADERS_SENT",
          "Cannot remove headers after they are sent to the client",
        );
      delete this._headers[String(name).toLowerCase()];
    }
    flushHeaders() {}
    setNoDelay() {}
    setSocketKeepAlive() {}
    // Node's socket timeout: 'timeout' after `ms` with no answer; the caller decides to abort.
    setTimeout(ms, cb) {
      if (cb) this.once("timeout", cb);
      this.timeout = Math.max(0, Number(ms) || 0);
      if (this._timer) S.G.clearTimeout(this._timer);
      this._timer = 0;
      if (this.timeout > 0 && !this._response)
        this._timer = S.G.setTimeout(() => {
          this._timer = 0;
          if (!this._response && !this.destroyed) {
            this.emit("timeout");
            this.socket.emit("timeout");
          }
        }, this.timeout);
      return this;
    }
    abort() {
      if (this.aborted) return;
      this.aborted = true;
      tick(() => this.emit("abort"));
      this.destroy();
    }
    _watch(signal) {
      var onAbort = () => {
        var err = coded(Error, "ABORT_ERR", "The operation was aborted");
        err.name = "AbortError";
        this.destroy(err);
      };
      if (signal.aborted) tick(onAbort);
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    _send() {
      this._sent = true;
      var headers = {};
      for (var key of Object.keys(this._headers))
        if (HOP.indexOf(key) < 0) headers[this._headers[key][0]] = this._headers[key][1];
      var request = { url: this._url, method: this.method, headers: headers, timeoutMs: 0 };
      if (this._chunks.length > 0) request.body = Buffer.concat(this._chunks).toString("base64");
      if (this._tls) request.tls = this._tls;
      this._chunks = [];
      S.hostAsync("http", S.jsonStringify(request)).then(
        (json) => this._answer(S.jsonParse(json)),
        (e) => {
          var message = net.explain(e, this.method + " " + this._url);
          if (!this.destroyed) this.destroy(coded(Error, e.code || "ECONNRESET", message));
        },
      );
    }
    _answer(wire) {
      if (this.destroyed) return;
      if (this._timer) S.G.clearTimeout(this._timer);
      var res = new msg.IncomingMessage(this.socket);
      res.req = this;
      res._fill(wire);
      this._response = res;
      res.once("end", () => {
        res.complete = true;
        tick(() => {
          if (!this.destroyed) this.destroy();
          if (!res.destroyed) res.destroy();
        });
      });
      if (!this.emit("response", res)) res.resume();
      var body = Buffer.from(wire.body, "base64");
      if (body.length > 0 && this.method !== "HEAD") res.push(body);
      res.push(null);
    }
  }

  // request(url[, options][, cb]) and request(options[, cb]) as one set of fields.
  function requestOptions(defaults, input, options) {
    var o = {};
    if (
      typeof input === "string" ||
      input instanceof URL ||
      (input && typeof input.href === "string" && input.searchParams)
    ) {
      var url = input instanceof URL ? input : new URL(String(input));
      o = {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        path: (url.pathname || "/") + (url.search || ""),
      };
      if (url.username || url.password)
        o.auth = decodeURIComponent(url.username) + ":" + decodeURIComponent(url.password);
    } else if (input && typeof input === "object") options = Object.assign({}, input, options || {});
    if (options && typeof options === "object") Object.assign(o, options);
    o.protocol = o.protocol || (o.agent && o.agent.protocol) || defaults.protocol;
    if (o.protocol !== defaults.protocol)
      throw coded(
        TypeError,
        "ERR_INVALID_PROTOCOL",
        'Protocol "' + o.protocol + '" not supported. Expected "' + defaults.protocol + '"',
      );
    var host = o.hostname || o.host || "localhost";
    o.hostname = String(host).replace(/^\[(.*)\]$/, "$1");
    var port = o.port || (o.agent && o.agent.defaultPort) || defaults.defaultPort;
    o.port = String(port) === String(defaults.defaultPort) ? "" : String(port);
    if (o.socketPath)
      throw coded(Error, "ENOTSUP", "http.request({ socketPath }) is not available in the Hookline sandbox");
    if (o.path && /[\u0000-\u0020]/.test(o.path))
      throw coded(TypeError, "ERR_UNESCAPED_CHARACTERS", "Request path contains unescaped characters");
    return o;
  }

  function makeModule(protocol, defaultPort) {
    var Agent = makeAgent(protocol, defaultPort);
    var mod = {
      Agent: Agent,
      globalAgent: new Agent({ keepAlive: true }),
      ClientRequest: ClientRequest,
      IncomingMessage: msg.IncomingMessage,
      OutgoingMessage: Writable,
      METHODS: msg.info.METHODS.slice(),
      STATUS_CODES: Object.assign({}, msg.info.STATUS_CODES),
      maxHeaderSize: msg.info.maxHeaderSize,
      validateHeaderName: msg.validateHeaderName,
      validateHeaderValue: msg.validateHeaderValue,
      setMaxIdleHTTPParsers: () => {},
      createServer: unavailable(protocol.slice(0, -1) + ".createServer"),
      Server: unavailable(protocol.slice(0, -1) + ".Server"),
      ServerResponse: unavailable(protocol.slice(0, -1) + ".ServerResponse"),
    };
    var defaults = { protocol: protocol, defaultPort: defaultPort, globalAgent: mod.globalAgent };
    mod.request = (input, options, cb) => {
      if (typeof options === "function") {
        cb = options;
        options = undefined;
      }
      return new ClientRequest(defaults, input, options, cb);
    };
    mod.get = (input, options, cb) => {
      var req = mod.request(input, options, cb);
      req.end();
      return req;
    };
    mod.default = mod;
    return mod;
  }

  var http = makeModule("http:", 80);
  var https = makeModule("https:", 443);
  var http2 = {
    constants: S.jsonParse(S.hostCall("http2.constants", "null")),
    sensitiveHeaders: Symbol("nodejs.http2.sensitiveHeaders"),
    getDefaultSettings: () => ({}),
    getPackedSettings: () => Buffer.alloc(0),
    connect: unavailable("http2.connect"),
    createServer: unavailable("http2.createServer"),
    createSecureServer: unavailable("http2.createSecureServer"),
  };
  http2.default = http2;
  return { modules: { http: http, https: https, http2: http2 } };
});
