// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Streams, part 1 (see stream.js): the shared helpers, the Stream base, destroy, and Readable
// (push/read, flowing and paused modes, setEncoding, async iteration, Readable.from/fromWeb).
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
      return Readable.from(S.load("pipeline").asyncIterable(web), Object.assign({ objectMode: false }, opts));
    }
  }

  return {
    tick: tick,
    codedError: codedError,
    toChunk: toChunk,
    chunkLength: chunkLength,
    Stream: Stream,
    destroyStream: destroyStream,
    Readable: Readable,
  };
});
