// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `querystring` module.
(function (S) {
  function makeQuerystring() {
    var qs = {
      escape: encodeURIComponent,
      unescape: decodeURIComponent,
      stringify: (obj, sep, eq) => {
        sep = sep || "&";
        eq = eq || "=";
        return Object.keys(obj || {})
          .flatMap((k) => {
            var v = obj[k];
            var values = Array.isArray(v) ? v : [v];
            return values.map(
              (x) => encodeURIComponent(k) + eq + encodeURIComponent(x === undefined || x === null ? "" : x),
            );
          })
          .join(sep);
      },
      parse: (str, sep, eq) => {
        sep = sep || "&";
        eq = eq || "=";
        var out = {};
        String(str || "")
          .split(sep)
          .forEach((part) => {
            if (!part) return;
            var i = part.indexOf(eq);
            var k = decodeURIComponent((i === -1 ? part : part.slice(0, i)).replace(/\+/g, " "));
            var v = i === -1 ? "" : decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "));
            if (out[k] === undefined) out[k] = v;
            else if (Array.isArray(out[k])) out[k].push(v);
            else out[k] = [out[k], v];
          });
        return out;
      },
    };
    qs.encode = qs.stringify;
    qs.decode = qs.parse;
    qs.default = qs;
    return qs;
  }
  return { modules: { querystring: makeQuerystring() } };
});
