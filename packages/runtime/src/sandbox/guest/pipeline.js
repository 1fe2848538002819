// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Streams, part 3 (see stream.js): pipeline() and finished(), with callbacks or promises, over
// streams, (async) iterables and web streams.
(function (S) {
  var base = S.load("readable");
  var tick = base.tick;
  var codedError = base.codedError;
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

  promises.default = promises;
  return { asyncIterable: asyncIterable, pipeline: pipeline, finished: eos, promises: promises };
});
