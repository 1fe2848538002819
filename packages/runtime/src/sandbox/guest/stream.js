// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `stream` and `stream/promises` modules: the `readable-stream` package (Node 18's streams,
// guest/vendor/stream.js), with what it leaves out of Node's: `Readable.fromWeb`/`toWeb` and
// `Writable.fromWeb`/`toWeb` over the sandbox's web streams (guest/web-streams.js).
(function (S) {
  var Stream = S.load("vendor/stream").modules.stream;
  var Readable = Stream.Readable;
  var Writable = Stream.Writable;
  // A web ReadableStream (or anything with getReader) as an async iterable.
  function iterateWeb(web) {
    return {
      [Symbol.asyncIterator]: () => {
        var reader = web.getReader();
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
  Readable.fromWeb = (web, opts) =>
    Readable.from(iterateWeb(web), Object.assign({ objectMode: false }, opts));
  Readable.toWeb = (readable) => {
    var it = readable[Symbol.asyncIterator]();
    return new S.G.ReadableStream({
      pull: (controller) =>
        it.next().then((step) => {
          if (step.done) controller.close();
          else controller.enqueue(typeof step.value === "string" ? S.G.Buffer.from(step.value) : step.value);
        }),
      cancel: () => readable.destroy(),
    });
  };
  Writable.fromWeb = (web, opts) => {
    var writer = web.getWriter();
    return new Writable(
      Object.assign({}, opts, {
        write: (chunk, _enc, cb) => writer.write(chunk).then(() => cb(), cb),
        final: (cb) => writer.close().then(() => cb(), cb),
        destroy: (err, cb) => {
          writer.abort(err).then(
            () => cb(err),
            () => cb(err),
          );
        },
      }),
    );
  };
  Writable.toWeb = (writable) =>
    new S.G.WritableStream({
      write: (chunk) =>
        new Promise((resolve, reject) => writable.write(chunk, (err) => (err ? reject(err) : resolve()))),
      close: () => new Promise((resolve) => writable.end(resolve)),
      abort: (reason) => writable.destroy(reason),
    });
  Stream.default = Stream;
  return {
    Readable: Readable,
    Writable: Writable,
    modules: { stream: Stream, "stream/promises": Stream.promises },
  };
});
