// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `stream` and `stream/promises` modules: the part of Node's streams components use
// (Readable, Writable, Duplex, Transform, PassThrough, pipe, async iteration, Readable.from,
// pipeline and finished, with callbacks or promises). Chunks are Buffers unless objectMode.
// Readable is in readable.js, pipeline and finished in pipeline.js.
(function (S) {
  var base = S.load("readable");
  var tick = base.tick;
  var codedError = base.codedError;
  var toChunk = base.toChunk;
  var chunkLength = base.chunkLength;
  var Stream = base.Stream;
  var destroyStream = base.destroyStream;
  var Readable = base.Readable;
  function initWritable(stream, opts) {
    var objectMode = !!(opts.objectMode || opts.writableObjectMode);
    stream._ws = {
      buffer: [],
      length: 0,
      hwm: opts.highWaterMark !== undefined ? opts.highWaterMark : objectMode ? 16 : 16384,
      objectMode: objectMode,
      decodeStrings: opts.decodeStrings !== false,
      writing: false,
      ending: false,
      finishing: false,
      finished: false,
      needDrain: false,
      destroyed: false,
    };
    stream.writable = true;
    if (typeof opts.write === "function") stream._write = opts.write;
    if (typeof opts.final === "function") stream._final = opts.final;
  }

  var writableMethods = {
    write(chunk, encoding, cb) {
      var ws = this._ws;
      if (typeof encoding === "function") {
        cb = encoding;
        encoding = undefined;
      }
      if (ws.ending || ws.destroyed) {
        var err = codedError("ERR_STREAM_WRITE_AFTER_END", "write after end");
        tick(() => {
          if (cb) cb(err);
          this.emit("error", err);
        });
        return false;
      }
      if (chunk === null) throw codedError("ERR_STREAM_NULL_VALUES", "May not write null values to stream");
      var c = ws.decodeStrings || typeof chunk !== "string" ? toChunk(chunk, encoding, ws.objectMode) : chunk;
      ws.buffer.push({ chunk: c, encoding: typeof c === "string" ? encoding || "utf8" : "buffer", cb: cb });
      ws.length += chunkLength(c, ws.objectMode);
      var ok = ws.length < ws.hwm;
      if (!ok) ws.needDrain = true;
      this._pump();
      return ok;
    },
    _pump() {
      var ws = this._ws;
      if (ws.writing || ws.destroyed) return;
      var item = ws.buffer.shift();
      if (!item) {
        if (ws.ending && !ws.finishing) this._finishWrites();
        return;
      }
      ws.writing = true;
      var sync = true;
      this._write(item.chunk, item.encoding, (err) => {
        ws.writing = false;
        ws.length -= chunkLength(item.chunk, ws.objectMode);
        if (err) {
          if (item.cb) item.cb(err);
          this.destroy(err);
          return;
        }
        if (item.cb) tick(item.cb);
        if (ws.needDrain && ws.length === 0 && !ws.ending) {
          ws.needDrain = false;
          tick(() => this.emit("drain"));
        }
        if (sync) tick(() => this._pump());
        else this._pump();
      });
      sync = false;
    },
    _finishWrites() {
      var ws = this._ws;
      ws.finishing = true;
      var done = (err) => {
        if (err) return this.destroy(err);
        ws.finished = true;
        tick(() => {
          this.writable = false;
          this.emit("finish");
          if (!this._rs || this._rs.endEmitted) this.destroy();
        });
      };
      if (typeof this._final === "function") this._final(done);
      else done();
    },
    end(chunk, encoding, cb) {
      if (typeof chunk === "function") {
        cb = chunk;
        chunk = undefined;
      } else if (typeof encoding === "function") {
        cb = encoding;
        encoding = undefined;
      }
      if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
      var ws = this._ws;
      if (cb) {
        if (ws.finished) tick(cb);
        else this.once("finish", cb);
      }
      if (!ws.ending) {
        ws.ending = true;
        this._pump();
      }
      return this;
    },
    cork() {},
    uncork() {},
    setDefaultEncoding() {
      return this;
    },
  };

  class Writable extends Stream {
    constructor(opts) {
      super();
      opts = opts || {};
      this.destroyed = false;
      initWritable(this, opts);
      if (typeof opts.destroy === "function") this._destroy = opts.destroy;
    }
    get writableFinished() {
      return this._ws.finished;
    }
    get writableEnded() {
      return this._ws.ending;
    }
    get writableLength() {
      return this._ws.length;
    }
    _write(_chunk, _encoding, cb) {
      cb(codedError("ERR_METHOD_NOT_IMPLEMENTED", "The _write() method is not implemented"));
    }
    _destroy(err, cb) {
      cb(err);
    }
    destroy(err, cb) {
      return destroyStream(this, err, cb);
    }
  }
  Object.assign(Writable.prototype, writableMethods);

  class Duplex extends Readable {
    constructor(opts) {
      opts = opts || {};
      super(opts);
      initWritable(this, opts);
      if (opts.allowHalfOpen === false) this.once("end", () => this.end());
    }
    get writableFinished() {
      return this._ws.finished;
    }
    get writableEnded() {
      return this._ws.ending;
    }
    _write(_chunk, _encoding, cb) {
      cb(codedError("ERR_METHOD_NOT_IMPLEMENTED", "The _write() method is not implemented"));
    }
  }
  for (var m of Object.keys(writableMethods)) Duplex.prototype[m] = writableMethods[m];

  class Transform extends Duplex {
    constructor(opts) {
      opts = opts || {};
      super(opts);
      if (typeof opts.transform === "function") this._transform = opts.transform;
      if (typeof opts.flush === "function") this._flush = opts.flush;
    }
    _read() {}
    _write(chunk, encoding, cb) {
      this._transform(chunk, encoding, (err, data) => {
        if (data !== undefined && data !== null) this.push(data);
        cb(err);
      });
    }
    _final(cb) {
      var end = (err, data) => {
        if (data !== undefined && data !== null) this.push(data);
        this.push(null);
        cb(err);
      };
      if (typeof this._flush === "function") this._flush(end);
      else end();
    }
    _transform() {
      throw codedError("ERR_METHOD_NOT_IMPLEMENTED", "The _transform() method is not implemented");
    }
  }

  class PassThrough extends Transform {
    _transform(chunk, _encoding, cb) {
      cb(null, chunk);
    }
  }

  var piping = S.load("pipeline");
  var promises = piping.promises;
  Stream.Stream = Stream;
  Stream.Readable = Readable;
  Stream.Writable = Writable;
  Stream.Duplex = Duplex;
  Stream.Transform = Transform;
  Stream.PassThrough = PassThrough;
  Stream.pipeline = piping.pipeline;
  Stream.finished = piping.finished;
  Stream.promises = promises;
  Stream.default = Stream;
  return { Readable: Readable, Writable: Writable, modules: { stream: Stream, "stream/promises": promises } };
});
