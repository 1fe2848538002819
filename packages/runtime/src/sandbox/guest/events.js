// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `events` module.
(function (S) {
  function makeEvents() {
    class EventEmitter {
      constructor() {
        this._events = {};
      }
      on(name, fn) {
        (this._events[name] = this._events[name] || []).push(fn);
        return this;
      }
      prependListener(name, fn) {
        (this._events[name] = this._events[name] || []).unshift(fn);
        return this;
      }
      once(name, fn) {
        var self = this;
        function wrapper() {
          self.off(name, wrapper);
          fn.apply(self, arguments);
        }
        wrapper.listener = fn;
        return this.on(name, wrapper);
      }
      off(name, fn) {
        var list = this._events[name] || [];
        this._events[name] = list.filter((l) => l !== fn && l.listener !== fn);
        return this;
      }
      removeAllListeners(name) {
        if (name === undefined) this._events = {};
        else delete this._events[name];
        return this;
      }
      emit(name) {
        var args = Array.prototype.slice.call(arguments, 1);
        var list = (this._events[name] || []).slice();
        if (name === "error" && list.length === 0)
          throw args[0] instanceof Error ? args[0] : new Error("Unhandled error");
        for (var fn of list) fn.apply(this, args);
        return list.length > 0;
      }
      listeners(name) {
        return (this._events[name] || []).slice();
      }
      listenerCount(name) {
        return (this._events[name] || []).length;
      }
      eventNames() {
        return Object.keys(this._events);
      }
      setMaxListeners() {
        return this;
      }
    }
    EventEmitter.prototype.addListener = EventEmitter.prototype.on;
    EventEmitter.prototype.removeListener = EventEmitter.prototype.off;
    EventEmitter.EventEmitter = EventEmitter;
    EventEmitter.default = EventEmitter;
    return EventEmitter;
  }
  return { modules: { events: makeEvents() } };
});
