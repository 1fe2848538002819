// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// `Intl` (QuickJS has none): each formatter keeps its locales and options, and Node's Intl on
// the host does the work (sandbox/_host-intl.ts); time zone UTC unless one is named. Also what
// `toLocaleString` and friends of Date, Number and String call (core.js routes them here).
(function (S) {
  var callHost = S.load("host").callHost;
  function wire(v) {
    if (v instanceof Date) return { $date: v.getTime() };
    if (typeof v === "number" && !Number.isFinite(v)) return { $num: String(v) };
    if (typeof v === "bigint") return { $big: String(v) };
    return v;
  }
  function make(kind, methods) {
    function Formatter(locales, options) {
      if (!(this instanceof Formatter)) return new Formatter(locales, options);
      this._spec = {
        kind: kind,
        locales: locales === undefined ? undefined : locales,
        options: options === undefined ? undefined : Object.assign({}, options),
      };
      // Validates the locales and options now, as Intl's constructors do.
      this._resolved = callHost("intl.resolve", this._spec);
    }
    Formatter.prototype.resolvedOptions = function () {
      return Object.assign({}, this._resolved);
    };
    for (var method of methods)
      ((m) => {
        Formatter.prototype[m] = function () {
          var args = Array.prototype.map.call(arguments, wire);
          return callHost("intl.call", Object.assign({ method: m, args: args }, this._spec));
        };
      })(method);
    Object.defineProperty(Formatter, "name", { value: kind });
    Formatter.supportedLocalesOf = (locales) => callHost("intl.supported", { kind: kind, locales: locales });
    return Formatter;
  }
  var DateTimeFormat = make("DateTimeFormat", ["formatToParts", "formatRange", "formatRangeToParts"]);
  var NumberFormat = make("NumberFormat", ["formatToParts", "formatRange"]);
  var Collator = make("Collator", []);
  // `format` and `compare` are bound getters in Intl (`array.sort(collator.compare)`).
  function bound(Formatter, name) {
    Object.defineProperty(Formatter.prototype, name, {
      configurable: true,
      get: function () {
        var spec = this._spec;
        return (...args) =>
          callHost("intl.call", Object.assign({ method: name, args: args.map(wire) }, spec));
      },
    });
  }
  bound(DateTimeFormat, "format");
  bound(NumberFormat, "format");
  bound(Collator, "compare");
  var Intl = {
    DateTimeFormat: DateTimeFormat,
    NumberFormat: NumberFormat,
    Collator: Collator,
    PluralRules: make("PluralRules", ["select", "selectRange"]),
    RelativeTimeFormat: make("RelativeTimeFormat", ["format", "formatToParts"]),
    ListFormat: make("ListFormat", ["format", "formatToParts"]),
    DisplayNames: make("DisplayNames", ["of"]),
    Segmenter: make("Segmenter", ["segment"]),
    getCanonicalLocales: (locales) => callHost("intl.canonical", locales === undefined ? [] : locales),
    supportedValuesOf: (key) => callHost("intl.supported", { kind: "values", key: key }),
  };
  Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl" });
  // Date/Number/String.prototype.toLocale*String and localeCompare, as Node's.
  var DATE = { year: "numeric", month: "numeric", day: "numeric" };
  var TIME = { hour: "numeric", minute: "numeric", second: "numeric" };
  function dateOptions(options, defaults) {
    var o = Object.assign({}, options);
    var has = (keys) => keys.some((k) => o[k] !== undefined);
    if (has(["dateStyle", "timeStyle"])) return o;
    if (
      !has([
        "weekday",
        "year",
        "month",
        "day",
        "hour",
        "minute",
        "second",
        "dayPeriod",
        "fractionalSecondDigits",
      ])
    )
      Object.assign(o, defaults);
    return o;
  }
  function toLocale(kind, self, locales, options) {
    if (kind === "number") return NumberFormat(locales, options).format(self);
    if (isNaN(self.getTime())) return "Invalid Date";
    var defaults = kind === "date" ? DATE : kind === "time" ? TIME : Object.assign({}, DATE, TIME);
    return DateTimeFormat(locales, dateOptions(options, defaults)).format(self);
  }
  return {
    Intl: Intl,
    toLocale: toLocale,
    compare: (a, b, locales, options) => Collator(locales, options).compare(String(a), String(b)),
  };
});
