// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// What http.js builds on: the response (`IncomingMessage`, a Readable), the socket a request and
// its response show (the host holds the real connection), header rules and Node's tables.
(function (S) {
  var Readable = S.require("stream").Readable;
  var EventEmitter = S.require("events");
  var info = S.jsonParse(S.hostCall("http.info", "null"));
  // Runs `fn` on a later turn; what its listeners throw is logged, as Node reports an uncaught
  // exception (else the invocation would only see a promise that never settles).
  function tick(fn) {
    Promise.resolve()
      .then(fn)
      .catch((e) => S.G.console.error("Uncaught exception in an http event handler:", e));
  }
  function coded(Kind, code, message) {
    var err = new Kind(message);
    err.code = code;
    return err;
  }
  var TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
  // Tab, visible ASCII and obs-text (Node's checkInvalidHeaderChar).
  var INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
  function validateHeaderName(name, label) {
    if (typeof name !== "string" || !name || !TOKEN.test(name))
      throw coded(
        TypeError,
        "ERR_INVALID_HTTP_TOKEN",
        (label || "Header name") + ' must be a valid HTTP token ["' + name + '"]',
      );
  }
  function validateHeaderValue(name, value) {
    if (value === undefined)
      throw coded(
        TypeError,
        "ERR_HTTP_INVALID_HEADER_VALUE",
        'Invalid value "' + value + '" for header "' + name + '"',
      );
    if (INVALID_VALUE.test(String(value)))
      throw coded(TypeError, "ERR_INVALID_CHAR", 'Invalid character in header content ["' + name + '"]');
  }
  // Response headers as Node shapes them: set-cookie a list, one value kept of the single-valued
  // fields, the others joined with ", " (cookie with "; ").
  var SINGLE =
    " age authorization content-length content-type etag expires from host if-modified-since " +
    "if-unmodified-since last-modified location max-forwards proxy-authorization referer retry-after server user-agent ";
  function headersFromRaw(raw) {
    var headers = {};
    var distinct = {};
    for (var i = 0; i + 1 < raw.length; i += 2) {
      var key = raw[i].toLowerCase();
      var value = raw[i + 1];
      (distinct[key] = distinct[key] || []).push(value);
      if (key === "set-cookie") (headers[key] = headers[key] || []).push(value);
      else if (headers[key] === undefined) headers[key] = value;
      else if (SINGLE.indexOf(" " + key + " ") < 0) headers[key] += (key === "cookie" ? "; " : ", ") + value;
    }
    return { headers: headers, distinct: distinct };
  }

  // The socket a request and its response show: the connection is the host's, so this reports
  // what SDKs ask (`socket.setTimeout`, `remoteAddress`, TLS state) and forwards `destroy`.
  class RequestSocket extends EventEmitter {
    constructor(request, secure) {
      super();
      this._request = request;
      this.connecting = false;
      this.writable = true;
      this.readable = true;
      this.destroyed = false;
      this.encrypted = secure || undefined;
      this.authorized = secure ? true : undefined;
      this.remoteAddress = undefined;
      this.remotePort = undefined;
      this.remoteFamily = undefined;
      this.bytesWritten = 0;
      this.bytesRead = 0;
    }
    setTimeout(ms, cb) {
      this._request.setTimeout(ms, cb);
      return this;
    }
    setNoDelay() {
      return this;
    }
    setKeepAlive() {
      return this;
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
    address() {
      return {};
    }
    getPeerCertificate() {
      return {};
    }
    end() {
      return this;
    }
    destroy(err) {
      if (!this.destroyed) {
        this.destroyed = true;
        this._request.destroy(err);
      }
      return this;
    }
  }

  class IncomingMessage extends Readable {
    constructor(socket) {
      super();
      this.socket = socket;
      this.headers = {};
      this.headersDistinct = {};
      this.rawHeaders = [];
      this.trailers = {};
      this.trailersDistinct = {};
      this.rawTrailers = [];
      this.statusCode = null;
      this.statusMessage = null;
      this.httpVersion = "1.1";
      this.httpVersionMajor = 1;
      this.httpVersionMinor = 1;
      this.complete = false;
      this.aborted = false;
      this.upgrade = false;
      this.url = "";
      this.method = null;
    }
    get connection() {
      return this.socket;
    }
    _fill(wire) {
      var shaped = headersFromRaw(wire.rawHeaders);
      this.statusCode = wire.status;
      this.statusMessage = wire.statusText || info.STATUS_CODES[wire.status] || "";
      this.rawHeaders = wire.rawHeaders;
      this.headers = shaped.headers;
      this.headersDistinct = shaped.distinct;
      var version = String(wire.httpVersion || "1.1");
      this.httpVersion = version;
      this.httpVersionMajor = Number(version.split(".")[0]) || 1;
      this.httpVersionMinor = Number(version.split(".")[1]) || 0;
    }
    _read() {}
    setTimeout(ms, cb) {
      this.socket.setTimeout(ms, cb);
      return this;
    }
  }

  return {
    info: info,
    tick: tick,
    coded: coded,
    validateHeaderName: validateHeaderName,
    validateHeaderValue: validateHeaderValue,
    RequestSocket: RequestSocket,
    IncomingMessage: IncomingMessage,
  };
});
