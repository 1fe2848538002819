// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// structuredClone.
(function (S) {
  function structuredClone(value) {
    var seen = new Map();
    function clone(v) {
      if (v === null || typeof v !== "object") {
        if (typeof v === "function" || typeof v === "symbol") throw new TypeError("could not be cloned");
        return v;
      }
      if (seen.has(v)) return seen.get(v);
      var out;
      if (v instanceof Date) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (ArrayBuffer.isView(v)) out = new v.constructor(v);
      else if (v instanceof Map) {
        out = new Map();
        seen.set(v, out);
        v.forEach((x, k) => out.set(clone(k), clone(x)));
        return out;
      } else if (v instanceof Set) {
        out = new Set();
        seen.set(v, out);
        v.forEach((x) => out.add(clone(x)));
        return out;
      } else if (Array.isArray(v)) {
        out = [];
        seen.set(v, out);
        for (var i = 0; i < v.length; i++) out[i] = clone(v[i]);
        return out;
      } else {
        out = {};
        seen.set(v, out);
        for (var k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      }
      seen.set(v, out);
      return out;
    }
    return clone(value);
  }
  return { structuredClone: structuredClone };
});
