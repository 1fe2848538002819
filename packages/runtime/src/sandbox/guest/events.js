// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `events` module: the `events` package (guest/vendor/events.js, a function constructor, so
// `EventEmitter.call(this)` and `util.inherits` work as on Node), with what Node added since:
// `errorMonitor`, `captureRejections` (accepted, not acted on), `getEventListeners`, static
// `setMaxListeners` and `listenerCount`.
(function (S) {
  var EventEmitter = S.load("vendor/events").modules.events;
  var proto = EventEmitter.prototype;
  var errorMonitor = Symbol("events.errorMonitor");
  var emit = proto.emit;
  // Node calls the errorMonitor listeners before the "error" ones (and before throwing).
  proto.emit = function (type) {
    if (type === "error" && this._events !== undefined && this._events[errorMonitor] !== undefined)
      emit.apply(this, [errorMonitor].concat(Array.prototype.slice.call(arguments, 1)));
    return emit.apply(this, arguments);
  };
  EventEmitter.errorMonitor = errorMonitor;
  EventEmitter.captureRejections = false;
  EventEmitter.captureRejectionSymbol = Symbol.for("nodejs.rejection");
  EventEmitter.getEventListeners = (emitter, name) =>
    typeof emitter.listeners === "function" ? emitter.listeners(name) : [];
  EventEmitter.setMaxListeners = () => undefined;
  EventEmitter.getMaxListeners = (emitter) =>
    typeof emitter.getMaxListeners === "function"
      ? emitter.getMaxListeners()
      : EventEmitter.defaultMaxListeners;
  EventEmitter.default = EventEmitter;
  return { modules: { events: EventEmitter } };
});
