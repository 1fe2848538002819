// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The host operations with JSON arguments and results ("" stands for undefined).
(function (S) {
  function encode(arg) {
    return S.jsonStringify(arg === undefined ? null : arg);
  }
  function decode(out) {
    return out === "" ? undefined : S.jsonParse(out);
  }
  return {
    callHost: (op, arg) => decode(S.hostCall(op, encode(arg))),
    asyncHost: (op, arg) => S.hostAsync(op, encode(arg)).then(decode),
  };
});
