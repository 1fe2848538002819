// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `assert` and `assert/strict` modules: the checks libraries make at run time (follow-redirects,
// under axios's Node adapter, asserts its options), failing with an AssertionError as Node's do.
(function (S) {
  class AssertionError extends Error {
    constructor(options) {
      var o = options || {};
      super(
        o.message ||
          (o.actual === undefined
            ? "Failed"
            : describe(o.actual) + " " + (o.operator || "==") + " " + describe(o.expected)),
      );
      this.name = "AssertionError";
      this.code = "ERR_ASSERTION";
      this.actual = o.actual;
      this.expected = o.expected;
      this.operator = o.operator;
      this.generatedMessage = !o.message;
    }
  }
  function describe(value) {
    try {
      return typeof value === "string" ? JSON.stringify(value) : String(S.jsonStringify(value) || value);
    } catch (_e) {
      return String(value);
    }
  }
  function fail(actual, expected, message, operator) {
    if (message instanceof Error) throw message;
    throw new AssertionError({ actual: actual, expected: expected, message: message, operator: operator });
  }
  function deepEqual(a, b, strict) {
    if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
    if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
      if (a.length !== b.length) return false;
      for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
      return true;
    }
    if (a instanceof Map && b instanceof Map) {
      if (a.size !== b.size) return false;
      for (var entry of a)
        if (!b.has(entry[0]) || !deepEqual(entry[1], b.get(entry[0]), strict)) return false;
      return true;
    }
    if (a instanceof Set && b instanceof Set) {
      if (a.size !== b.size) return false;
      for (var item of a) if (!b.has(item)) return false;
      return true;
    }
    var ka = Object.keys(a);
    var kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (var key of ka) if (!Object.hasOwn(b, key) || !deepEqual(a[key], b[key], strict)) return false;
    return true;
  }
  function matches(error, expected) {
    if (expected === undefined) return true;
    if (typeof expected === "function") {
      if (expected.prototype !== undefined && error instanceof expected) return true;
      if (Error.isPrototypeOf(expected) || expected === Error) return false;
      return expected(error) === true;
    }
    if (expected instanceof RegExp)
      return expected.test(String(error && error.message !== undefined ? error.message : error));
    for (var key of Object.keys(expected)) {
      var want = expected[key];
      var got = error[key];
      if (want instanceof RegExp ? !want.test(String(got)) : !deepEqual(got, want, true)) return false;
    }
    return true;
  }
  function makeAssert(strict) {
    function assert(value, message) {
      if (!value) fail(value, true, message, "==");
    }
    assert.ok = assert;
    assert.fail = (message) => fail(undefined, undefined, message === undefined ? "Failed" : message, "fail");
    assert.equal = (a, b, m) =>
      (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) ||
      fail(a, b, m, strict ? "strictEqual" : "==");
    assert.notEqual = (a, b, m) =>
      (strict ? !Object.is(a, b) : a != b) || fail(a, b, m, strict ? "notStrictEqual" : "!=");
    assert.strictEqual = (a, b, m) => Object.is(a, b) || fail(a, b, m, "strictEqual");
    assert.notStrictEqual = (a, b, m) => !Object.is(a, b) || fail(a, b, m, "notStrictEqual");
    assert.deepEqual = (a, b, m) => deepEqual(a, b, strict) || fail(a, b, m, "deepEqual");
    assert.notDeepEqual = (a, b, m) => !deepEqual(a, b, strict) || fail(a, b, m, "notDeepEqual");
    assert.deepStrictEqual = (a, b, m) => deepEqual(a, b, true) || fail(a, b, m, "deepStrictEqual");
    assert.notDeepStrictEqual = (a, b, m) => !deepEqual(a, b, true) || fail(a, b, m, "notDeepStrictEqual");
    assert.match = (s, re, m) => re.test(s) || fail(s, re, m, "match");
    assert.doesNotMatch = (s, re, m) => !re.test(s) || fail(s, re, m, "doesNotMatch");
    assert.ifError = (value) => {
      if (value !== null && value !== undefined) throw value;
    };
    assert.throws = (fn, expected, message) => {
      try {
        fn();
      } catch (e) {
        if (!matches(e, expected)) throw e;
        return;
      }
      fail(
        undefined,
        expected,
        typeof expected === "string" ? expected : message || "Missing expected exception.",
        "throws",
      );
    };
    assert.doesNotThrow = (fn, message) => {
      try {
        fn();
      } catch (e) {
        fail(e, undefined, message || "Got unwanted exception: " + e.message, "doesNotThrow");
      }
    };
    assert.rejects = (promise, expected, message) =>
      Promise.resolve(typeof promise === "function" ? promise() : promise).then(
        () => fail(undefined, expected, message || "Missing expected rejection.", "rejects"),
        (e) => {
          if (!matches(e, expected)) throw e;
        },
      );
    assert.doesNotReject = (promise, message) =>
      Promise.resolve(typeof promise === "function" ? promise() : promise).then(
        () => undefined,
        (e) => fail(e, undefined, message || "Got unwanted rejection: " + e.message, "doesNotReject"),
      );
    assert.AssertionError = AssertionError;
    return assert;
  }
  var assert = makeAssert(false);
  assert.strict = makeAssert(true);
  assert.strict.strict = assert.strict;
  assert.default = assert;
  return { modules: { assert: assert, "assert/strict": assert.strict } };
});
