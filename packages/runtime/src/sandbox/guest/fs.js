// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `fs` and `fs/promises` modules over the sandbox's private /tmp: every call is the
// synchronous host operation "fs" (packages/runtime/src/sandbox/volume.ts), which refuses any
// path outside /tmp with EACCES. Callback and promise forms wrap the synchronous ones.
(function (S) {
  var bytes = S.load("bytes");
  var Buffer = bytes.Buffer;

  function fsError(e) {
    var err = new Error(e.message);
    err.code = e.code;
    err.errno = e.errno;
    err.syscall = e.syscall;
    if (e.path !== undefined) err.path = e.path;
    return err;
  }
  function call(op, args) {
    args.op = op;
    var out = S.jsonParse(S.hostCall("fs", S.jsonStringify(args)));
    if (out.e) throw fsError(out.e);
    return out.r;
  }
  function argError(name, what) {
    var err = new TypeError('The "' + name + '" argument must be ' + what);
    err.code = "ERR_INVALID_ARG_TYPE";
    return err;
  }
  function toPath(p, name) {
    if (typeof p === "string") return p;
    if (p instanceof Uint8Array) return bytes.utf8Decode(p);
    if (p && typeof p === "object" && p.href !== undefined && p.protocol === "file:")
      return decodeURIComponent(p.pathname);
    throw argError(name || "path", "of type string or an instance of Buffer or URL");
  }
  function encodingOf(options) {
    if (typeof options === "string") return options;
    return options && options.encoding ? options.encoding : null;
  }
  function isUtf8(enc) {
    var e = String(enc).toLowerCase();
    return e === "utf8" || e === "utf-8";
  }
  // Data for the host: text as is when it is UTF-8, anything else as base64 bytes.
  function toData(data, encoding) {
    if (typeof data === "string") {
      if (!encoding || isUtf8(encoding)) return { s: data };
      return { b64: bytes.base64Encode(bytes.encodeString(data, encoding), false) };
    }
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data))
      return { b64: bytes.base64Encode(bytes.toBytes(data), false) };
    throw argError("data", "of type string or an instance of Buffer, TypedArray, or DataView");
  }
  function fromBase64(b64, encoding) {
    var buf = Buffer.from(b64, "base64");
    return encoding ? buf.toString(encoding) : buf;
  }

  class Stats {
    constructor(s) {
      this.dev = 0;
      this.ino = s.ino;
      this.mode = s.mode;
      this.nlink = s.nlink;
      this.uid = 0;
      this.gid = 0;
      this.rdev = 0;
      this.size = s.size;
      this.blksize = 4096;
      this.blocks = Math.ceil(s.size / 512);
      this.atimeMs = s.atimeMs;
      this.mtimeMs = s.mtimeMs;
      this.ctimeMs = s.ctimeMs;
      this.birthtimeMs = s.birthtimeMs;
      this.atime = new Date(s.atimeMs);
      this.mtime = new Date(s.mtimeMs);
      this.ctime = new Date(s.ctimeMs);
      this.birthtime = new Date(s.birthtimeMs);
      Object.defineProperty(this, "_kind", { value: s.kind });
    }
    isFile() {
      return this._kind === "file";
    }
    isDirectory() {
      return this._kind === "dir";
    }
    isSymbolicLink() {
      return this._kind === "link";
    }
    isFIFO() {
      return false;
    }
    isSocket() {
      return false;
    }
    isBlockDevice() {
      return false;
    }
    isCharacterDevice() {
      return false;
    }
  }
  class Dirent {
    constructor(name, kind, dir) {
      this.name = name;
      this.parentPath = dir;
      this.path = dir;
      Object.defineProperty(this, "_kind", { value: kind });
    }
  }
  for (var m of [
    "isFile",
    "isDirectory",
    "isSymbolicLink",
    "isFIFO",
    "isSocket",
    "isBlockDevice",
    "isCharacterDevice",
  ])
    Dirent.prototype[m] = Stats.prototype[m];

  function readdirSync(p, options) {
    var dir = toPath(p);
    var withTypes = options && typeof options === "object" && options.withFileTypes;
    var recursive = options && typeof options === "object" && options.recursive;
    var out = [];
    function walk(abs, rel) {
      for (var entry of call("readdir", { p: abs })) {
        var name = rel ? rel + "/" + entry[0] : entry[0];
        out.push(withTypes ? new Dirent(entry[0], entry[1], rel ? dir + "/" + rel : dir) : name);
        if (recursive && entry[1] === "dir") walk(abs + "/" + entry[0], name);
      }
    }
    walk(dir, "");
    return out;
  }
  function readFileSync(p, options) {
    var enc = encodingOf(options);
    if (typeof p === "number") {
      var chunks = [];
      for (;;) {
        var part = Buffer.from(call("read", { fd: p, len: 65536 }), "base64");
        if (part.length === 0) break;
        chunks.push(part);
      }
      var all = Buffer.concat(chunks);
      return enc ? all.toString(enc) : all;
    }
    if (enc && isUtf8(enc)) return call("readFile", { p: toPath(p), utf8: true }).s;
    return fromBase64(call("readFile", { p: toPath(p) }).b64, enc);
  }
  function writeFileSync(p, data, options) {
    var flag = options && typeof options === "object" && options.flag ? String(options.flag) : "w";
    if (typeof p === "number") {
      writeSync(p, data);
      return;
    }
    call("writeFile", {
      p: toPath(p),
      data: toData(data, encodingOf(options)),
      append: flag[0] === "a",
      excl: flag.indexOf("x") !== -1,
    });
  }
  function appendFileSync(p, data, options) {
    if (typeof p === "number") {
      writeSync(p, data);
      return;
    }
    call("writeFile", { p: toPath(p), data: toData(data, encodingOf(options)), append: true });
  }
  function statSync(p, options) {
    try {
      return new Stats(call("stat", { p: toPath(p) }));
    } catch (e) {
      if (options && options.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
      throw e;
    }
  }
  function lstatSync(p, options) {
    try {
      return new Stats(call("stat", { p: toPath(p), lstat: true }));
    } catch (e) {
      if (options && options.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
      throw e;
    }
  }
  function mkdirSync(p, options) {
    return call("mkdir", {
      p: toPath(p),
      recursive: !!(options && typeof options === "object" && options.recursive),
    });
  }
  function openSync(p, flags) {
    var flag = flags === undefined || flags === null ? "r" : flags;
    if (typeof flag === "number") flag = flag & 1024 ? "a" : flag & 512 ? "w" : flag & 3 ? "r+" : "r";
    return call("open", { p: toPath(p), flags: String(flag) });
  }
  // readSync(fd, buffer, offset, length, position) or readSync(fd, buffer, { offset, length, position })
  function readSync(fd, buffer, offset, length, position) {
    if (offset && typeof offset === "object") {
      position = offset.position;
      length = offset.length;
      offset = offset.offset;
    }
    offset = offset || 0;
    length = length === undefined ? buffer.byteLength - offset : length;
    var args = { fd: fd, len: length };
    if (typeof position === "number" && position >= 0) args.pos = position;
    var data = bytes.base64Decode(call("read", args));
    new Uint8Array(buffer.buffer || buffer, (buffer.byteOffset || 0) + offset, data.length).set(data);
    return data.length;
  }
  // writeSync(fd, buffer, offset?, length?, position?) or writeSync(fd, string, position?, encoding?)
  function writeSync(fd, data, a, b, c) {
    var args = { fd: fd };
    if (typeof data === "string") {
      args.data = toData(data, typeof b === "string" ? b : null);
      if (typeof a === "number") args.pos = a;
    } else {
      var view = bytes.toBytes(data);
      var offset = typeof a === "number" ? a : 0;
      var length = typeof b === "number" ? b : view.length - offset;
      args.data = toData(view.subarray(offset, offset + length));
      if (typeof c === "number") args.pos = c;
    }
    return call("write", args);
  }

  var sync = {
    existsSync: (p) => {
      try {
        call("stat", { p: toPath(p) });
        return true;
      } catch (_e) {
        return false;
      }
    },
    readFileSync: readFileSync,
    writeFileSync: writeFileSync,
    appendFileSync: appendFileSync,
    readdirSync: readdirSync,
    statSync: statSync,
    lstatSync: lstatSync,
    fstatSync: (fd) => new Stats(call("fstat", { fd: fd })),
    mkdirSync: mkdirSync,
    mkdtempSync: (prefix) => call("mkdtemp", { prefix: toPath(prefix, "prefix") }),
    unlinkSync: (p) => call("unlink", { p: toPath(p) }),
    rmdirSync: (p, options) =>
      options && options.recursive
        ? call("rm", { p: toPath(p), recursive: true })
        : call("rmdir", { p: toPath(p) }),
    rmSync: (p, options) =>
      call("rm", {
        p: toPath(p),
        recursive: !!(options && options.recursive),
        force: !!(options && options.force),
      }),
    renameSync: (from, to) => call("rename", { from: toPath(from, "oldPath"), to: toPath(to, "newPath") }),
    copyFileSync: (from, to, mode) =>
      call("copyFile", { from: toPath(from, "src"), to: toPath(to, "dest"), excl: ((mode || 0) & 1) === 1 }),
    truncateSync: (p, len) => call("truncate", { p: toPath(p), len: len || 0 }),
    ftruncateSync: (fd, len) => call("truncate", { fd: fd, len: len || 0 }),
    realpathSync: (p) => call("realpath", { p: toPath(p) }),
    symlinkSync: (target, p) => call("symlink", { target: toPath(target, "target"), p: toPath(p) }),
    readlinkSync: (p) => call("readlink", { p: toPath(p) }),
    accessSync: (p) => call("access", { p: toPath(p) }),
    chmodSync: (p, mode) =>
      call("chmod", { p: toPath(p), mode: typeof mode === "string" ? parseInt(mode, 8) : mode }),
    chownSync: (p) => call("access", { p: toPath(p) }),
    utimesSync: (p, atime, mtime) => {
      var secs = (t) => (t instanceof Date ? t.getTime() / 1000 : Number(t));
      call("utimes", { p: toPath(p), atime: secs(atime), mtime: secs(mtime) });
    },
    openSync: openSync,
    closeSync: (fd) => call("close", { fd: fd }),
    readSync: readSync,
    writeSync: writeSync,
    fsyncSync: (fd) => {
      call("fstat", { fd: fd });
    },
  };
  sync.realpathSync.native = sync.realpathSync;

  var fs = {
    constants: {
      F_OK: 0,
      R_OK: 4,
      W_OK: 2,
      X_OK: 1,
      COPYFILE_EXCL: 1,
      O_RDONLY: 0,
      O_WRONLY: 1,
      O_RDWR: 2,
      O_CREAT: 64,
      O_EXCL: 128,
      O_TRUNC: 512,
      O_APPEND: 1024,
    },
  };
  Object.assign(fs, fs.constants);
  var promises = { constants: fs.constants };
  // Each synchronous call also as fs.<name>(..., callback) and fs.promises.<name>(...).
  for (var name of Object.keys(sync)) {
    var fn = sync[name];
    fs[name] = fn;
    if (name === "existsSync") continue;
    var base = name.slice(0, -4);
    fs[base] = callbackForm(fn, base);
    promises[base] = promiseForm(fn);
  }
  function callbackForm(fn, base) {
    return function () {
      var args = Array.prototype.slice.call(arguments);
      var cb = typeof args[args.length - 1] === "function" ? args.pop() : null;
      if (!cb) throw argError("cb", "of type function");
      var value;
      var error = null;
      try {
        value = fn.apply(undefined, args);
      } catch (e) {
        error = e;
      }
      Promise.resolve().then(() => {
        if (error) cb(error);
        else if (base === "read" || base === "write") cb(null, value, args[1]);
        else cb(null, value);
      });
    };
  }
  function promiseForm(fn) {
    return function () {
      var args = arguments;
      return new Promise((resolve) => resolve(fn.apply(undefined, args)));
    };
  }
  fs.exists = (p, cb) => {
    var found = sync.existsSync(p);
    Promise.resolve().then(() => cb(found));
  };
  promises.access = promiseForm(sync.accessSync);

  // fs.promises.open(): a FileHandle over a descriptor.
  class FileHandle {
    constructor(fd) {
      this.fd = fd;
    }
    read(buffer, offset, length, position) {
      return promiseForm(() => ({
        bytesRead: readSync(this.fd, buffer, offset, length, position),
        buffer: buffer,
      }))();
    }
    write(data, a, b, c) {
      return promiseForm(() => ({ bytesWritten: writeSync(this.fd, data, a, b, c), buffer: data }))();
    }
    readFile(options) {
      return promiseForm(() => readFileSync(this.fd, options))();
    }
    writeFile(data) {
      return promiseForm(() => {
        writeSync(this.fd, data);
      })();
    }
    appendFile(data) {
      return this.writeFile(data);
    }
    stat() {
      return promiseForm(() => sync.fstatSync(this.fd))();
    }
    truncate(len) {
      return promiseForm(() => sync.ftruncateSync(this.fd, len))();
    }
    close() {
      return promiseForm(() => sync.closeSync(this.fd))();
    }
  }
  promises.open = (p, flags) => promiseForm(() => new FileHandle(openSync(p, flags)))();

  // Streams: a file is opened when the stream is made; an error (EACCES, ENOENT) arrives as the
  // stream's "error" event, as in Node. `spec(opts, file)` gives the stream's read or write.
  function fileStream(kind, p, options, flags, spec) {
    var opts = typeof options === "string" ? { encoding: options } : options || {};
    var file = { fd: typeof opts.fd === "number" ? opts.fd : null };
    var openError = null;
    var path = file.fd === null ? toPath(p) : p;
    try {
      if (file.fd === null) file.fd = openSync(path, opts.flags || flags);
    } catch (e) {
      openError = e;
    }
    var methods = spec(opts, file);
    methods.destroy = (err, cb) => {
      if (file.fd !== null && opts.autoClose !== false) {
        try {
          call("close", { fd: file.fd });
        } catch (_e) {}
        file.fd = null;
      }
      cb(err);
    };
    var Kind = S.load("stream")[kind];
    var stream = new Kind(methods);
    stream.path = path;
    if (openError) stream.destroy(openError);
    else {
      var fd = file.fd;
      Promise.resolve().then(() => {
        stream.emit("open", fd);
        stream.emit("ready");
      });
    }
    return stream;
  }
  function createReadStream(p, options) {
    var stream = fileStream("Readable", p, options, "r", (opts, file) => {
      var position = typeof opts.start === "number" ? opts.start : 0;
      var end = typeof opts.end === "number" ? opts.end : Infinity;
      var chunkSize = opts.highWaterMark || 65536;
      return {
        highWaterMark: chunkSize,
        encoding: opts.encoding || undefined,
        read() {
          try {
            var len = Math.min(chunkSize, end - position + 1);
            if (len <= 0) return this.push(null);
            var data = Buffer.from(call("read", { fd: file.fd, len: len, pos: position }), "base64");
            position += data.length;
            this.bytesRead += data.length;
            this.push(data.length === 0 ? null : data);
          } catch (e) {
            this.destroy(e);
          }
        },
      };
    });
    stream.bytesRead = 0;
    stream.close = (cb) => stream.destroy(null, cb);
    return stream;
  }
  function createWriteStream(p, options) {
    var stream = fileStream("Writable", p, options, "w", (_opts, file) => ({
      write(chunk, _encoding, cb) {
        try {
          this.bytesWritten += writeSync(file.fd, chunk);
          cb();
        } catch (e) {
          cb(e);
        }
      },
    }));
    stream.bytesWritten = 0;
    stream.close = (cb) => {
      if (cb) stream.once("close", () => cb());
      stream.end();
    };
    return stream;
  }
  // fs.ReadStream and fs.WriteStream: what the streams above are instances of (got checks a
  // request body with `instanceof fs.ReadStream`; without the class, every got request failed with
  // "invalid 'instanceof' right operand"). Called with or without `new`, they open one. The check
  // is a mark on the stream, so that loading fs does not load the stream module.
  var KIND = Symbol("fs stream");
  function streamClass(name, create) {
    var Class = {
      [name]: function (p, options) {
        return create(p, options);
      },
    }[name];
    Object.defineProperty(Class, Symbol.hasInstance, {
      value: (v) => v !== null && typeof v === "object" && v[KIND] === name,
    });
    return Class;
  }
  function marked(stream, name) {
    Object.defineProperty(stream, KIND, { value: name });
    return stream;
  }
  fs.createReadStream = (p, options) => marked(createReadStream(p, options), "ReadStream");
  fs.createWriteStream = (p, options) => marked(createWriteStream(p, options), "WriteStream");
  fs.ReadStream = streamClass("ReadStream", fs.createReadStream);
  fs.WriteStream = streamClass("WriteStream", fs.createWriteStream);
  fs.Stats = Stats;
  fs.Dirent = Dirent;
  fs.promises = promises;
  fs.default = fs;
  promises.default = promises;
  return { modules: { fs: fs, "fs/promises": promises } };
});
