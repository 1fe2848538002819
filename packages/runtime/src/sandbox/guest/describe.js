// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Definition -> JSON: functions become {"$fn": true} (what @hookline/core's validation accepts).
// Used when the host describes a component (Runtime.load) and for additionalProps' result.
(function (_S) {
  function serializeDefinition(value, depth, seen) {
    if (typeof value === "function") return { $fn: true };
    if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
    if (depth > 24 || seen.indexOf(value) !== -1) return null;
    if (value instanceof RegExp || value instanceof Date) return String(value);
    seen.push(value);
    var out;
    if (Array.isArray(value)) {
      out = [];
      for (var i = 0; i < value.length; i++) out.push(serializeDefinition(value[i], depth + 1, seen));
    } else {
      out = {};
      for (var k of Object.keys(value)) {
        var v = value[k];
        if (v !== undefined) out[k] = serializeDefinition(v, depth + 1, seen);
      }
    }
    seen.pop();
    return out;
  }

  return { serializeDefinition: serializeDefinition };
});
