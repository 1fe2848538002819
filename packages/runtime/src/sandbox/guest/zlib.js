// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `zlib` module, computed by the host (sandbox/_zlib.ts): the one-shot functions (sync and
// callback forms), the streams (`createGunzip()`... as Transform streams) and `constants`.
(function (S) {
  var Buffer = S.require("buffer").Buffer;
  var Transform = S.require("stream").Transform;
  function call(request) {
    var out = S.jsonParse(S.hostCall("zlib", S.jsonStringify(request)));
    if (out.error) throw zlibError(out.error);
    return out;
  }
  function zlibError(detail) {
    var err = new Error(detail.message);
    err.code = detail.code;
    if (detail.errno !== undefined) err.errno = detail.errno;
    return err;
  }
  function toBuffer(data) {
    if (typeof data === "string") return Buffer.from(data, "utf8");
    if (data instanceof ArrayBuffer) return Buffer.from(new Uint8Array(data));
    if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    var err = new TypeError(
      'The "buffer" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer.',
    );
    err.code = "ERR_INVALID_ARG_TYPE";
    throw err;
  }
  // Options as JSON: a dictionary as base64; brotli params keep their numeric keys.
  function wireOptions(options) {
    if (!options) return undefined;
    var out = {};
    for (var key of Object.keys(options)) {
      var value = options[key];
      if (key === "dictionary" && value !== undefined) out.dictionary = toBuffer(value).toString("base64");
      else if (key === "info") continue;
      else if (typeof value === "number" || typeof value === "boolean") out[key] = value;
      else if (key === "params" && value && typeof value === "object") out.params = Object.assign({}, value);
    }
    return out;
  }
  var constants = S.jsonParse(S.hostCall("zlib.constants", "null"));

  var KINDS = ["gzip", "gunzip", "deflate", "inflate", "deflateRaw", "inflateRaw", "unzip"];
  KINDS.push("brotliCompress", "brotliDecompress");
  var zlib = { constants: constants, codes: {} };
  for (var name of Object.keys(constants)) if (/^Z_/.test(name)) zlib[name] = constants[name];

  function oneShot(kind) {
    function sync(data, options) {
      var out = call({
        op: "sync",
        kind: kind,
        data: toBuffer(data).toString("base64"),
        options: wireOptions(options),
      });
      return Buffer.from(out.data, "base64");
    }
    function withCallback(data, options, cb) {
      if (typeof options === "function") {
        cb = options;
        options = undefined;
      }
      var result;
      var error = null;
      try {
        result = sync(data, options);
      } catch (e) {
        error = e;
      }
      Promise.resolve().then(() => cb(error, result));
    }
    zlib[kind + "Sync"] = sync;
    zlib[kind] = withCallback;
  }

  class ZlibStream extends Transform {
    constructor(kind, options) {
      super(options);
      this._kind = kind;
      this._options = wireOptions(options);
      this._zid = 0;
      this.bytesWritten = 0;
      this._handle = {};
    }
    get _closed() {
      return this.destroyed;
    }
    // The host stream is made on the first write (most streams are made and used at once).
    _host(data, flags) {
      if (!this._zid) this._zid = call({ op: "open", kind: this._kind, options: this._options }).id;
      var request = Object.assign({ op: "write", id: this._zid, data: data.toString("base64") }, flags);
      return S.hostAsync("zlib", S.jsonStringify(request)).then((json) => {
        var out = S.jsonParse(json);
        if (out.error) {
          this._zid = 0;
          throw zlibError(out.error);
        }
        if (out.data) this.push(Buffer.from(out.data, "base64"));
      });
    }
    _transform(chunk, encoding, cb) {
      var data = typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk;
      this.bytesWritten += data.length;
      this._host(data, {}).then(() => cb(), cb);
    }
    _flush(cb) {
      this._host(Buffer.alloc(0), { end: true }).then(() => {
        this._zid = 0;
        cb();
      }, cb);
    }
    flush(kind, cb) {
      if (typeof kind === "function") cb = kind;
      this._host(Buffer.alloc(0), { flush: true }).then(
        () => cb && cb(),
        (e) => this.destroy(e),
      );
    }
    params(_level, _strategy, cb) {
      if (cb) Promise.resolve().then(cb);
    }
    reset() {}
    close(cb) {
      if (cb) this.once("close", cb);
      this.destroy();
    }
    _destroy(err, cb) {
      if (this._zid) call({ op: "close", id: this._zid });
      this._zid = 0;
      cb(err);
    }
  }

  var CLASSES = {
    gzip: "Gzip",
    gunzip: "Gunzip",
    deflate: "Deflate",
    inflate: "Inflate",
    deflateRaw: "DeflateRaw",
    inflateRaw: "InflateRaw",
    unzip: "Unzip",
    brotliCompress: "BrotliCompress",
    brotliDecompress: "BrotliDecompress",
  };
  function streamClass(kind) {
    var cls = class extends ZlibStream {
      constructor(options) {
        super(kind, options);
      }
    };
    Object.defineProperty(cls, "name", { value: CLASSES[kind] });
    zlib[CLASSES[kind]] = cls;
    zlib["create" + CLASSES[kind]] = (options) => new cls(options);
  }
  for (var kind of KINDS) {
    oneShot(kind);
    streamClass(kind);
  }
  var CODES = ["Z_VERSION_ERROR", "Z_BUF_ERROR", "Z_MEM_ERROR", "Z_DATA_ERROR", "Z_STREAM_ERROR", "Z_ERRNO"];
  CODES.push("Z_OK", "Z_STREAM_END", "Z_NEED_DICT");
  for (var i = 0; i < CODES.length; i++) {
    zlib.codes[CODES[i]] = i - 6;
    zlib.codes[i - 6] = CODES[i];
  }
  zlib.default = zlib;
  return { modules: { zlib: zlib } };
});
