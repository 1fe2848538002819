// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Timers (each a host `sleep`), queueMicrotask and the `timers` module.
(function (S) {
  var timerSeq = 0;
  var liveTimers = new Map();
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
    return id;
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
    liveTimers.delete(typeof id === "object" && id !== null ? id.id : id);
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
    },
  };
  return timers;
});
