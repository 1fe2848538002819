// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `net` and `tls` modules: client sockets as Duplex streams over host sockets (net/socket-host.ts).
// Commands go to the host in order (`hostCall("net")`); what happens on the sockets comes back in
// batches through one pending `hostAsync("net.poll")` while any socket is open. The host applies
// the SSRF guard, the caps and the idle timeout; servers are not available.
(function (S) {
  var Buffer = S.require("buffer").Buffer;
  var Duplex = S.require("stream").Duplex;
  var unavailable = S.load("unavailable").module;
  var open = new Map();
  var seq = 0;
  var polling = false;
  function tick(fn) {
    Promise.resolve().then(fn);
  }
  function coded(code, message, extra) {
    var err = new Error(message);
    err.code = code;
    if (extra) Object.assign(err, extra);
    return err;
  }
  function command(cmd) {
    S.hostCall("net", S.jsonStringify(cmd));
  }
  // One wait for events at a time, while sockets are open; a listener's exception is logged (as
  // Node would report an uncaught one) and the next events still come.
  function poll() {
    if (polling || open.size === 0) return;
    polling = true;
    S.hostAsync("net.poll", "null").then(
      (json) => {
        polling = false;
        var events = S.jsonParse(json);
        // Nothing to say means the host let go of this sandbox's sockets: they are gone.
        if (events.length === 0) events = Array.from(open.keys(), (id) => ["error", id, GONE]);
        var failure = null;
        for (var i = 0; i < events.length; i++) {
          var socket = open.get(events[i][1]);
          if (!socket) continue;
          try {
            socket._hostEvent(events[i][0], events[i][2]);
          } catch (e) {
            failure = failure || e;
          }
        }
        poll();
        if (failure) S.G.console.error("Uncaught exception in a socket event handler:", failure);
      },
      () => {
        polling = false;
      },
    );
  }
  // An error's message; one from the SSRF guard says why and goes to the component's logs too
  // (an SDK that retries or swallows it would leave no trace otherwise).
  function explain(error, what) {
    if (error.code !== "ssrf_blocked") return error.message;
    var message =
      error.message +
      " (the Hookline sandbox refuses private and loopback addresses unless the server allows them)";
    S.G.console.warn(what + " refused: " + message);
    return message;
  }
  var GONE = { code: "ECONNRESET", message: "The host closed the sandbox's sockets" };
  var PEM_FIELDS = ["ca", "cert", "key"];
  // TLS options as the host takes them: certificates and keys as PEM text.
  function tlsWire(options) {
    var context = (options.secureContext && options.secureContext.context) || {};
    var out = {};
    var all = Object.assign({}, context, options);
    for (var name of ["servername", "passphrase", "minVersion", "maxVersion", "ciphers"])
      if (typeof all[name] === "string") out[name] = all[name];
    if (all.rejectUnauthorized !== undefined) out.rejectUnauthorized = all.rejectUnauthorized !== false;
    for (var field of PEM_FIELDS) {
      var value = all[field];
      if (value === undefined || value === null) continue;
      out[field] = Array.isArray(value) ? value.map(String) : String(value);
    }
    if (Array.isArray(all.ALPNProtocols)) out.ALPNProtocols = all.ALPNProtocols.map(String);
    return out;
  }
  var IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  function isIPv4(s) {
    return IPV4.test(String(s));
  }
  function isIPv6(s) {
    var text = String(s).split("%")[0];
    if (!/^[0-9a-fA-F:.]+$/.test(text) || text.indexOf(":") < 0) return false;
    var parts = text.split("::");
    if (parts.length > 2) return false;
    var groups = [];
    for (var part of parts) if (part) groups = groups.concat(part.split(":"));
    var last = groups[groups.length - 1];
    var v4 = last !== undefined && last.indexOf(".") >= 0;
    if (v4 && !isIPv4(last)) return false;
    var count = groups.length + (v4 ? 1 : 0);
    for (var i = 0; i < groups.length - (v4 ? 1 : 0); i++)
      if (!/^[0-9a-fA-F]{1,4}$/.test(groups[i])) return false;
    return parts.length === 2 ? count < 8 : count === 8;
  }
  function isIP(s) {
    return isIPv4(s) ? 4 : isIPv6(s) ? 6 : 0;
  }
  // net.connect's arguments: (options[, cb]), (port[, host][, cb]) or (path[, cb]).
  function normalize(args) {
    var options = {};
    var cb = null;
    var list = Array.prototype.slice.call(args);
    if (typeof list[list.length - 1] === "function") cb = list.pop();
    if (list[0] !== null && typeof list[0] === "object") options = Object.assign({}, list[0]);
    else if (typeof list[0] === "string" && !/^\d+$/.test(list[0])) options.path = list[0];
    else {
      options.port = list[0];
      if (typeof list[1] === "string") options.host = list[1];
      else if (list[1] && typeof list[1] === "object") Object.assign(options, list[1]);
    }
    if (list[2] && typeof list[2] === "object") Object.assign(options, list[2]);
    return { options: options, cb: cb };
  }

  class Socket extends Duplex {
    constructor(options) {
      options = options || {};
      super({ allowHalfOpen: !!options.allowHalfOpen });
      this._id = 0;
      this._queued = [];
      this._hostClosed = false;
      this.connecting = false;
      this.bytesRead = 0;
      this.bytesWritten = 0;
      this.remoteAddress = undefined;
      this.remotePort = undefined;
      this.remoteFamily = undefined;
      this.localAddress = undefined;
      this.localPort = undefined;
      this._timeoutMs = 0;
    }
    get pending() {
      return !this._connected;
    }
    get readyState() {
      if (this.connecting) return "opening";
      if (!this._connected || this.destroyed) return "closed";
      return this.readable && this.writable ? "open" : this.readable ? "readOnly" : "writeOnly";
    }
    connect() {
      var given = normalize(arguments);
      if (given.cb) this.once("connect", given.cb);
      this._start(given.options, null);
      return this;
    }
    _start(options, tls) {
      if (options.path !== undefined) {
        var err = coded("ENOTSUP", "Unix domain sockets are not available in the Hookline sandbox");
        tick(() => this.destroy(err));
        return;
      }
      var port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw coded("ERR_SOCKET_BAD_PORT", "Port should be >= 0 and < 65536. Received " + options.port + ".");
      }
      this.connecting = true;
      this._id = ++seq;
      open.set(this._id, this);
      var cmd = { op: "open", id: this._id, host: String(options.host || "localhost"), port: port };
      this._target = cmd.host + ":" + port;
      if (options.family === 4 || options.family === 6) cmd.family = options.family;
      if (tls) cmd.tls = tls;
      this._send(cmd);
      poll();
      if (options.timeout) this.setTimeout(options.timeout);
      for (var queued of this._queued.splice(0)) this._send(queued);
    }
    // A command for this socket; one given before connect() waits for it.
    _send(cmd) {
      if (!this._id) {
        this._queued.push(cmd);
        return;
      }
      cmd.id = this._id;
      try {
        command(cmd);
      } catch (e) {
        tick(() => this.destroy(e));
      }
    }
    _hostEvent(kind, detail) {
      if (kind === "connect") {
        this.connecting = false;
        this._connected = true;
        Object.assign(this, {
          remoteAddress: detail.remoteAddress,
          remotePort: detail.remotePort,
          remoteFamily: detail.remoteFamily,
          localAddress: detail.localAddress,
          localPort: detail.localPort,
        });
        if (detail.tls) this._secured(detail.tls);
        if (!this._upgraded) {
          this.emit("connect");
          this.emit("ready");
        }
        if (detail.tls) this.emit("secureConnect");
      } else if (kind === "data") {
        var chunk = Buffer.from(detail, "base64");
        this.bytesRead += chunk.length;
        this.push(chunk);
      } else if (kind === "end") this.push(null);
      else if (kind === "timeout") this.emit("timeout");
      else if (kind === "error") {
        this.destroy(coded(detail.code, explain(detail, "net.connect " + this._target)));
      } else if (kind === "close") this._closedByHost();
    }
    _closedByHost() {
      open.delete(this._id);
      this._hostClosed = true;
      if (this.destroyed) return;
      // What was received is read first; 'end' then 'close', as on Node.
      if (this.readableEnded || !this._connected) this.destroy();
      else {
        this.push(null);
        this.once("end", () => this.destroy());
      }
    }
    _read() {}
    _write(chunk, encoding, cb) {
      if (this._hostClosed) return cb(coded("EPIPE", "This socket has been ended by the other party"));
      var bytes = typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk;
      this.bytesWritten += bytes.length;
      this._send({ op: "write", data: bytes.toString("base64") });
      cb();
    }
    _final(cb) {
      if (!this._hostClosed) this._send({ op: "end" });
      cb();
    }
    _destroy(err, cb) {
      this.connecting = false;
      if (this._id && open.has(this._id)) {
        open.delete(this._id);
        try {
          command({ op: "destroy", id: this._id });
        } catch (_e) {
          // No socket link: nothing is open on the host.
        }
      }
      cb(err);
    }
    setTimeout(ms, cb) {
      this._timeoutMs = Math.max(0, Number(ms) || 0);
      if (cb) {
        if (this._timeoutMs === 0) this.removeListener("timeout", cb);
        else this.once("timeout", cb);
      }
      this._send({ op: "set", timeout: this._timeoutMs });
      return this;
    }
    get timeout() {
      return this._timeoutMs || undefined;
    }
    setNoDelay(noDelay) {
      this._send({ op: "set", noDelay: noDelay !== false });
      return this;
    }
    setKeepAlive(enable, delay) {
      this._send({ op: "set", keepAlive: !!enable, keepAliveDelay: Number(delay) || 0 });
      return this;
    }
    address() {
      return this._connected
        ? { address: this.localAddress, port: this.localPort, family: this.remoteFamily }
        : {};
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
    resetAndDestroy() {
      return this.destroy();
    }
    _secured(_info) {}
  }

  function JSStreamSocket() {
    throw coded(
      "ERR_NOT_AVAILABLE_IN_SANDBOX",
      "TLS over a non-socket stream is not available in the Hookline sandbox",
    );
  }
  class TLSSocket extends Socket {
    constructor(socket, options) {
      super(options);
      this.encrypted = true;
      this.authorized = false;
      this.authorizationError = null;
      this.alpnProtocol = false;
      this._tlsInfo = null;
      // A TLSSocket around another kind of stream (Node's JSStreamSocket): only the shape that
      // http2-wrapper reads at load (`._handle._parentWrap.constructor`); using it fails clearly.
      if (socket && !(socket instanceof Socket))
        this._handle = { _parentWrap: Object.create(JSStreamSocket.prototype) };
    }
    _secured(info) {
      this._tlsInfo = info;
      this.authorized = info.authorized;
      this.authorizationError = info.authorizationError;
      this.alpnProtocol = info.alpnProtocol;
    }
    getPeerCertificate() {
      return this._tlsInfo ? Object.assign({}, this._tlsInfo.cert) : {};
    }
    getProtocol() {
      return this._tlsInfo ? this._tlsInfo.protocol : null;
    }
    getSession() {
      return undefined;
    }
    isSessionReused() {
      return false;
    }
    setServername() {}
    getCipher() {
      return undefined;
    }
    // STARTTLS: the connected socket's traffic goes through TLS from now on (pg, mysql2, SMTP).
    _upgrade(plain, tls) {
      var from = plain._id;
      this._upgraded = true;
      this.connecting = true;
      this._id = ++seq;
      open.set(this._id, this);
      // The plain socket hears nothing more: its traffic is this one's now.
      open.delete(from);
      command({ op: "tls", id: from, to: this._id, tls: tls });
      poll();
    }
  }

  function connect() {
    var given = normalize(arguments);
    var socket = new Socket(given.options);
    return socket.connect(given.options, given.cb || undefined);
  }

  function tlsConnect() {
    var given = normalize(arguments);
    var options = given.options;
    var wire = tlsWire(options);
    if (wire.servername === undefined && options.host && !isIP(options.host))
      wire.servername = String(options.host);
    var socket = new TLSSocket(options.socket, options);
    if (given.cb) socket.once("secureConnect", given.cb);
    var plain = options.socket;
    if (plain instanceof Socket && open.has(plain._id)) {
      try {
        socket._upgrade(plain, wire);
      } catch (e) {
        tick(() => socket.destroy(e));
      }
    } else if (plain) {
      tick(() => socket.destroy(coded("ENOTSUP", "tls.connect({ socket }) needs a connected net.Socket")));
    } else {
      try {
        socket._start(options, wire);
      } catch (e) {
        tick(() => socket.destroy(e));
      }
    }
    return socket;
  }

  var info = null;
  function hostInfo() {
    info = info || S.jsonParse(S.hostCall("net.info", "null"));
    return info;
  }

  var net = {
    Socket: Socket,
    Stream: Socket,
    connect: connect,
    createConnection: connect,
    isIP: isIP,
    isIPv4: isIPv4,
    isIPv6: isIPv6,
    getDefaultAutoSelectFamily: () => true,
    setDefaultAutoSelectFamily: () => {},
    createServer: unavailable("net.createServer"),
    Server: unavailable("net.Server"),
  };
  var tls = {
    TLSSocket: TLSSocket,
    connect: tlsConnect,
    createSecureContext: (options) => ({ context: Object.assign({}, options || {}) }),
    checkServerIdentity: () => undefined,
    DEFAULT_MIN_VERSION: "TLSv1.2",
    DEFAULT_MAX_VERSION: "TLSv1.3",
    DEFAULT_ECDH_CURVE: "auto",
    getCiphers: () => hostInfo().ciphers.slice(),
    createServer: unavailable("tls.createServer"),
    Server: unavailable("tls.Server"),
  };
  Object.defineProperty(tls, "rootCertificates", { enumerable: true, get: () => hostInfo().roots });
  net.default = net;
  tls.default = tls;
  return { isIP: isIP, tlsWire: tlsWire, explain: explain, modules: { net: net, tls: tls } };
});
