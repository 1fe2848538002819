// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `stream` and `stream/promises` modules: the part of Node's streams components use
// (Readable, Writable, Duplex, Transform, PassThrough, pipe, async iteration, Readable.from,
// pipeline and finished, with callbacks or promises). Chunks are Buffers unless objectMode.
(function (S) {
  var EventEmitter = S.load("events").modules.events;
  var bytes = S.load("bytes");
  var Buffer = bytes.Buffer;
  function tick(fn) {
    Promise.resolve().then(fn);
  }
  function codedError(code, message) {
    var err = new Error(message);
    err.code = code;
    return err;
  }
  function toChunk(chunk, encoding, objectMode) {
    if (objectMode) return chunk;
    if (typeof chunk === "string") return Buffer.from(chunk, encoding || "utf8");
    if (chunk instanceof Buffer) return chunk;
    if (ArrayBuffer.isView(chunk) || chunk instanceof ArrayBuffer) return Buffer.from(bytes.toBytes(chunk));
    throw codedError(
      "ERR_INVALID_ARG_TYPE",
      'The "chunk" argument must be of type string or an instance of Buffer or Uint8Array',
    );
  }
  function chunkLength(chunk, objectMode) {
    return objectMode ? 1 : chunk.length;
  }
  // Decodes a stream of bytes to text without splitting a UTF-8 character or a base64 group.
  function makeDecoder(encoding) {
    var enc = String(encoding).toLowerCase();
    var tail = new Uint8Array(0);
    function keep(all) {
      if (enc === "base64" || enc === "base64url") return all.length - (all.length % 3);
      if (enc !== "utf8" && enc !== "utf-8") return all.length;
      for (var back = 1; back <= 3 && back <= all.length; back++) {
        var b = all[all.length - back];
        if ((b & 0xc0) === 0x80) continue;
        var need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
        return need > back ? all.length - back : all.length;
      }
      return all.length;
    }
    return {
      write: (chunk) => {
        var all = Buffer.concat([tail, chunk]);
        var cut = keep(all);
        tail = all.subarray(cut);
        return bytes.decodeBytes(all.subarray(0, cut), enc);
      },
      end: () => {
        var rest = tail.length > 0 ? bytes.decodeBytes(tail, enc) : "";
        tail = new Uint8Array(0);
        return rest;
      },
    };
  }

  class Stream extends EventEmitter {
    pipe(dest, options) {
      var src = this;
      src.on("data", (chunk) => {
        if (dest.write(chunk) === false && typeof src.pause === "function") {
          src.pause();
          dest.once("drain", () => src.resume());
        }
      });
      if (!options || options.end !== false) src.once("end", () => dest.end());
      dest.emit("pipe", src);
      return dest;
    }
  }

  function destroyStream(stream, err, cb) {
    if (stream.destroyed) {
      if (cb) tick(() => cb(err));
      return stream;
    }
    stream.destroyed = true;
    if (stream._rs) stream._rs.destroyed = true;
    if (stream._ws) stream._ws.destroyed = true;
    stream._destroy(err || null, (e) => {
      tick(() => {
        if (cb) cb(e);
        else if (e) {
          stream.errored = e;
          stream.emit("error", e);
        }
        stream.closed = true;
        stream.emit("close");
      });
    });
    return stream;
  }

  function initReadable(stream, opts) {
    var objectMode = !!(opts.objectMode || opts.readableObjectMode);
    stream._rs = {
      buffer: [],
      length: 0,
      hwm: opts.highWaterMark !== undefined ? opts.highWaterMark : objectMode ? 16 : 16384,
      objectMode: objectMode,
      ended: false,
      endEmitted: false,
      flowing: null,
      reading: false,
      scheduled: false,
      decoder: null,
      destroyed: false,
    };
    stream.readable = true;
    if (typeof opts.read === "function") stream._read = opts.read;
    if (opts.encoding) stream.setEncoding(opts.encoding);
  }

  class Readable extends Stream {
    constructor(opts) {
      super();
      opts = opts || {};
      this.destroyed = false;
      initReadable(this, opts);
      if (typeof opts.destroy === "function") this._destroy = opts.destroy;
    }
    get readableEnded() {
      return this._rs.endEmitted;
    }
    get readableObjectMode() {
      return this._rs.objectMode;
    }
    get readableLength() {
      return this._rs.length;
    }
    get readableFlowing() {
      return this._rs.flowing;
    }
    _read() {
      this.destroy(codedError("ERR_METHOD_NOT_IMPLEMENTED", "The _read() method is not implemented"));
    }
    _destroy(err, cb) {
      cb(err);
    }
    destroy(err, cb) {
      return destroyStream(this, err, cb);
    }
    setEncoding(encoding) {
      this._rs.decoder = makeDecoder(encoding);
      return this;
    }
    push(chunk, encoding) {
      var rs = this._rs;
      if (rs.destroyed) return false;
      rs.reading = false;
      if (chunk === null) {
        rs.ended = true;
        if (rs.decoder) {
          var rest = rs.decoder.end();
          if (rest) rs.buffer.push(rest);
        }
      } else {
        if (rs.ended) {
          this.destroy(codedError("ERR_STREAM_PUSH_AFTER_EOF", "stream.push() after EOF"));
          return false;
        }
        var c = toChunk(chunk, encoding, rs.objectMode);
        rs.length += chunkLength(c, rs.objectMode);
        rs.buffer.push(rs.decoder && !rs.objectMode ? rs.decoder.write(c) : c);
      }
      this._schedule();
      return !rs.ended && rs.length < rs.hwm;
    }
    unshift(chunk) {
      var rs = this._rs;
      var c = toChunk(chunk, undefined, rs.objectMode);
      rs.length += chunkLength(c, rs.objectMode);
      rs.buffer.unshift(c);
      this._schedule();
    }
    _schedule() {
      var rs = this._rs;
      if (rs.scheduled) return;
      rs.scheduled = true;
      tick(() => {
        rs.scheduled = false;
        this._flow();
      });
    }
    _take() {
      var rs = this._rs;
      var c = rs.buffer.shift();
      rs.length -= typeof c === "string" ? (rs.objectMode ? 1 : c.length) : chunkLength(c, rs.objectMode);
      if (rs.length < 0) rs.length = 0;
      return c;
    }
    _flow() {
      var rs = this._rs;
      if (rs.destroyed) return;
      while (rs.flowing && rs.buffer.length > 0) this.emit("data", this._take());
      if (rs.flowing === false && (rs.buffer.length > 0 || rs.ended) && this.listenerCount("readable") > 0)
        this.emit("readable");
      if (rs.ended && rs.buffer.length === 0) {
        if (!rs.endEmitted && rs.flowing !== null) {
          rs.endEmitted = true;
          this.readable = false;
          this.emit("end");
          if (!this._ws || this._ws.finished) this.destroy();
        }
        return;
      }
      if (!rs.ended && !rs.reading && rs.length < rs.hwm && rs.flowing !== null) {
        rs.reading = true;
        try {
          this._read(rs.hwm);
        } catch (e) {
          this.destroy(e);
        }
      }
    }
    read() {
      var rs = this._rs;
      if (rs.flowing === null) rs.flowing = false;
      this._schedule();
      if (rs.buffer.length === 0) return null;
      if (rs.objectMode) return this._take();
      var parts = [];
      while (rs.buffer.length > 0) parts.push(this._take());
      return typeof parts[0] === "string" ? parts.join("") : Buffer.concat(parts);
    }
    on(name, fn) {
      super.on(name, fn);
      if (name === "data" && this._rs.flowing !== false) this.resume();
      else if (name === "readable") {
        this._rs.flowing = false;
        this._schedule();
      }
      return this;
    }
    resume() {
      this._rs.flowing = true;
      this._schedule();
      return this;
    }
    pause() {
      if (this._rs.flowing !== false) this._rs.flowing = false;
      return this;
    }
    isPaused() {
      return this._rs.flowing === false;
    }
    unpipe() {
      this.removeAllListeners("data");
      return this;
    }
    [Symbol.asyncIterator]() {
      var stream = this;
      var queue = [];
      var done = false;
      var failure = null;
      var wake = null;
      function signal() {
        if (wake) {
          var w = wake;
          wake = null;
          w();
        }
      }
      stream.on("data", (chunk) => {
        queue.push(chunk);
        if (queue.length >= 16) stream.pause();
        signal();
      });
      stream.once("end", () => {
        done = true;
        signal();
      });
      stream.once("error", (e) => {
        failure = e;
        signal();
      });
      stream.once("close", () => {
        if (!done && !failure) failure = codedError("ERR_STREAM_PREMATURE_CLOSE", "Premature close");
        signal();
      });
      var iterator = {
        next: () => {
          if (queue.length > 0) {
            var value = queue.shift();
            if (queue.length < 16 && !done) stream.resume();
            return Promise.resolve({ value: value, done: false });
          }
          if (failure) return Promise.reject(failure);
          if (done) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => {
            wake = resolve;
          }).then(() => iterator.next());
        },
        return: () => {
          done = true;
          stream.destroy();
          return Promise.resolve({ value: undefined, done: true });
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    }
    static from(iterable, opts) {
      opts = Object.assign({ objectMode: true }, opts);
      if (typeof iterable === "string" || iterable instanceof Uint8Array) {
        var once = iterable;
        return new Readable(
          Object.assign(opts, {
            read() {
              if (once !== null) this.push(once);
              once = null;
              this.push(null);
            },
          }),
        );
      }
      var it = iterable[Symbol.asyncIterator]
        ? iterable[Symbol.asyncIterator]()
        : iterable[Symbol.iterator]
          ? iterable[Symbol.iterator]()
          : null;
      if (!it) throw codedError("ERR_INVALID_ARG_TYPE", 'The "iterable" argument must be an iterable');
      var r = new Readable(
        Object.assign(opts, {
          read() {
            Promise.resolve(it.next()).then(
              (step) => {
                if (step.done) r.push(null);
                else r.push(step.value);
              },
              (e) => r.destroy(e),
            );
          },
          destroy(err, cb) {
            if (typeof it.return === "function") Promise.resolve(it.return()).catch(() => undefined);
            cb(err);
          },
        }),
      );
      return r;
    }
    static fromWeb(web, opts) {
      return Readable.from(asyncIterable(web), Object.assign({ objectMode: false }, opts));
    }
  }

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

  // Any source pipeline() takes, as an async iterable: streams, (async) iterables, web streams.
  function asyncIterable(source) {
    if (source && typeof source[Symbol.asyncIterator] === "function") return source;
    if (source && typeof source.getReader === "function") {
      return {
        [Symbol.asyncIterator]: () => {
          var reader = source.getReader();
          return {
            next: () => reader.read(),
            return: () => {
              if (typeof reader.releaseLock === "function") reader.releaseLock();
              return Promise.resolve({ done: true, value: undefined });
            },
          };
        },
      };
    }
    if (source && typeof source !== "string" && typeof source[Symbol.iterator] === "function") return source;
    throw codedError("ERR_INVALID_ARG_TYPE", "pipeline: a source must be a stream or an iterable");
  }

  function eos(stream, options, cb) {
    if (typeof options === "function") {
      cb = options;
      options = {};
    }
    var called = false;
    var done = (err) => {
      if (called) return;
      called = true;
      cb(err);
    };
    // A stream with a writable side is done when it finished, a readable one when it ended.
    var writable = !!stream._ws;
    var complete = () => (writable ? stream._ws.finished : !!(stream._rs && stream._rs.endEmitted));
    var premature = () => codedError("ERR_STREAM_PREMATURE_CLOSE", "Premature close");
    if (complete()) tick(() => done());
    else if (stream.destroyed) tick(() => done(stream.errored || premature()));
    stream.once("error", done);
    stream.once(writable ? "finish" : "end", () => done());
    stream.once("close", () => done(complete() ? undefined : stream.errored || premature()));
    return () => {
      called = true;
    };
  }

  function waitFor(stream, event) {
    return new Promise((resolve, reject) => {
      var onError = (e) => {
        stream.off(event, onEvent);
        reject(e);
      };
      var onEvent = () => {
        stream.off("error", onError);
        resolve();
      };
      stream.once(event, onEvent);
      stream.once("error", onError);
    });
  }

  // Writes everything the iterable yields into a writable, honouring backpressure, then ends it.
  function pump(iterable, dest, end) {
    return (async () => {
      for await (var chunk of asyncIterable(iterable)) {
        if (dest.destroyed)
          throw (
            dest.errored || codedError("ERR_STREAM_DESTROYED", "Cannot write after a stream was destroyed")
          );
        if (dest.write(chunk) === false) await waitFor(dest, "drain");
      }
      if (end !== false) {
        var finished = new Promise((resolve, reject) => eos(dest, (e) => (e ? reject(e) : resolve())));
        dest.end();
        await finished;
      }
    })();
  }

  function runPipeline(streams) {
    var current = streams[0];
    if (typeof current === "function") current = current();
    var jobs = [];
    for (var i = 1; i < streams.length; i++) {
      var step = streams[i];
      if (typeof step === "function") {
        current = step(asyncIterable(current));
        if (i === streams.length - 1) jobs.push(Promise.resolve(current));
      } else {
        jobs.push(pump(current, step));
        current = step;
      }
    }
    // Any stream's error fails the pipeline (and is handled, so it never goes unheard).
    var failed = new Promise((_resolve, reject) => {
      for (var s of streams) if (s && typeof s.on === "function") s.on("error", reject);
    });
    return Promise.race([Promise.all(jobs), failed]).then(
      () => current,
      (err) => {
        for (var s of streams) if (s && typeof s.destroy === "function" && !s.destroyed) s.destroy(err);
        throw err;
      },
    );
  }

  function isOptions(x) {
    return (
      x !== null &&
      typeof x === "object" &&
      typeof x.pipe !== "function" &&
      typeof x.write !== "function" &&
      typeof x.getReader !== "function" &&
      typeof x[Symbol.asyncIterator] !== "function" &&
      typeof x[Symbol.iterator] !== "function"
    );
  }

  function streamsOf(args) {
    var streams = Array.prototype.slice.call(args);
    if (Array.isArray(streams[0])) streams = streams[0].concat(streams.slice(1));
    return streams;
  }

  function pipeline() {
    var streams = streamsOf(arguments);
    var cb = typeof streams[streams.length - 1] === "function" ? streams.pop() : null;
    if (!cb) throw codedError("ERR_INVALID_ARG_TYPE", 'The "callback" argument must be of type function');
    if (isOptions(streams[streams.length - 1])) streams.pop();
    runPipeline(streams).then(
      () => cb(),
      (e) => cb(e),
    );
    return streams[streams.length - 1];
  }

  var promises = {
    pipeline: function () {
      var streams = streamsOf(arguments);
      if (isOptions(streams[streams.length - 1])) streams.pop();
      return runPipeline(streams).then(() => undefined);
    },
    finished: (stream, options) =>
      new Promise((resolve, reject) => eos(stream, options || {}, (e) => (e ? reject(e) : resolve()))),
  };

  Stream.Stream = Stream;
  Stream.Readable = Readable;
  Stream.Writable = Writable;
  Stream.Duplex = Duplex;
  Stream.Transform = Transform;
  Stream.PassThrough = PassThrough;
  Stream.pipeline = pipeline;
  Stream.finished = eos;
  Stream.promises = promises;
  Stream.default = Stream;
  promises.default = promises;
  return { Readable: Readable, Writable: Writable, modules: { stream: Stream, "stream/promises": promises } };
});
