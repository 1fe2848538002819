// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// inspect() and format() of console and util.
(function (S) {
  function inspect(value, depth) {
    if (typeof value === "string") return depth ? S.jsonStringify(value) : value;
    if (value === undefined) return "undefined";
    if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
    if (typeof value === "symbol" || typeof value === "bigint") return String(value);
    if (value instanceof Error)
      return value.stack ? value.name + ": " + value.message + "\n" + value.stack : String(value);
    if (value === null || typeof value !== "object") return String(value);
    try {
      var seen = [];
      return S.jsonStringify(value, (_key, v) => {
        if (typeof v === "bigint") return v.toString();
        if (typeof v === "function") return "[Function]";
        if (v instanceof Map) return Object.fromEntries(v);
        if (v instanceof Set) return Array.from(v);
        if (v !== null && typeof v === "object") {
          if (seen.indexOf(v) !== -1) return "[Circular]";
          seen.push(v);
        }
        return v;
      });
    } catch (_e) {
      return String(value);
    }
  }

  function format() {
    var args = Array.prototype.slice.call(arguments);
    if (typeof args[0] === "string" && args[0].indexOf("%") !== -1) {
      var fmt = args.shift();
      var out = fmt.replace(/%[sdifjoO%]/g, (m) => {
        if (m === "%%") return "%";
        if (args.length === 0) return m;
        var a = args.shift();
        if (m === "%d" || m === "%i") return String(m === "%i" ? Math.trunc(Number(a)) : Number(a));
        if (m === "%f") return String(Number(a));
        return typeof a === "string" && m === "%s" ? a : inspect(a, 1);
      });
      args.unshift(out);
    }
    return args.map((a) => inspect(a, 0)).join(" ");
  }
  return { inspect: inspect, format: format };
});
