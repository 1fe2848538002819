// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Timers (each a host `sleep`), queueMicrotask and the `timers` module.
(function (S) {
  var timerSeq = 0;
  var liveTimers = new Map();
  // What Node's timers return: SDKs call `unref()` on them (a number has no methods), and a
  // number is what the object turns into (`+timer`, a key of an object).
  class Timeout {
    constructor(id) {
      this.id = id;
    }
    ref() {
      return this;
    }
    unref() {
      return this;
    }
    hasRef() {
      return true;
    }
    refresh() {
      return this;
    }
    close() {
      clearTimer(this);
      return this;
    }
    [Symbol.toPrimitive]() {
      return this.id;
    }
  }
  function startTimer(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("The callback must be a function");
    var id = ++timerSeq;
    var delay = Math.max(0, Number(ms) || 0);
    liveTimers.set(id, true);
    function tick() {
      S.hostAsync("sleep", String(delay)).then(() => {
        if (!liveTimers.has(id)) return;
        if (!repeat) liveTimers.delete(id);
        fn.apply(undefined, args);
        if (repeat && liveTimers.has(id)) tick();
      });
    }
    tick();
    return new Timeout(id);
  }
  function setTimeout(fn, ms) {
    return startTimer(fn, ms, Array.prototype.slice.call(arguments, 2), false);
  }
  function setInterval(fn, ms) {
    return startTimer(fn, ms, Array.prototype.slice.call(arguments, 2), true);
  }
  function setImmediate(fn) {
    return startTimer(fn, 0, Array.prototype.slice.call(arguments, 1), false);
  }
  function clearTimer(id) {
    liveTimers.delete(typeof id === "object" && id !== null ? id.id : Number(id));
  }
  function queueMicrotask(fn) {
    Promise.resolve().then(fn);
  }
  var timers = {
    setTimeout: setTimeout,
    clearTimeout: clearTimer,
    setInterval: setInterval,
    clearInterval: clearTimer,
    setImmediate: setImmediate,
    clearImmediate: clearTimer,
    queueMicrotask: queueMicrotask,
  };
  timers.modules = {
    timers: {
      setTimeout: setTimeout,
      clearTimeout: clearTimer,
      setInterval: setInterval,
      clearInterval: clearTimer,
      setImmediate: setImmediate,
      clearImmediate: clearTimer,
    },
    "timers/promises": {
      setTimeout: (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms)),
      setImmediate: (value) => new Promise((resolve) => setImmediate(() => resolve(value))),
      scheduler: { wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    },
  };
  return timers;
});
