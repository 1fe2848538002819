// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `diagnostics_channel` module: channels nobody subscribes to from outside the sandbox.
// Database drivers create tracing channels at load; their traces run the traced function as is.
(function (_S) {
  var channels = Object.create(null);
  function Channel(name) {
    this.name = name;
    this.subscribers = [];
  }
  Object.defineProperty(Channel.prototype, "hasSubscribers", {
    get() {
      return this.subscribers.length > 0;
    },
  });
  Channel.prototype.subscribe = function (fn) {
    this.subscribers.push(fn);
  };
  Channel.prototype.unsubscribe = function (fn) {
    var i = this.subscribers.indexOf(fn);
    if (i >= 0) this.subscribers.splice(i, 1);
    return i >= 0;
  };
  Channel.prototype.publish = function (message) {
    for (var fn of this.subscribers.slice()) fn(message, this.name);
  };
  function channel(name) {
    return channels[name] || (channels[name] = new Channel(name));
  }
  function tracingChannel(name) {
    var names = ["start", "end", "asyncStart", "asyncEnd", "error"];
    var tc = {};
    for (var n of names) tc[n] = channel("tracing:" + name + ":" + n);
    Object.defineProperty(tc, "hasSubscribers", { get: () => names.some((n) => tc[n].hasSubscribers) });
    // Traces run the traced function with its arguments (nobody outside listens).
    function traced(skip) {
      return function (fn) {
        return fn.apply(arguments[skip - 1], Array.prototype.slice.call(arguments, skip));
      };
    }
    tc.traceSync = traced(3);
    tc.tracePromise = traced(3);
    tc.traceCallback = traced(4);
    tc.subscribe = (handlers) => {
      for (var n of names) if (handlers[n]) tc[n].subscribe(handlers[n]);
    };
    tc.unsubscribe = (handlers) => {
      for (var n of names) if (handlers[n]) tc[n].unsubscribe(handlers[n]);
    };
    return tc;
  }
  var mod = {
    channel: channel,
    hasSubscribers: (name) => channel(name).hasSubscribers,
    subscribe: (name, fn) => channel(name).subscribe(fn),
    unsubscribe: (name, fn) => channel(name).unsubscribe(fn),
    tracingChannel: tracingChannel,
    Channel: Channel,
  };
  return { modules: { diagnostics_channel: mod } };
});
