// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `dns` and `dns/promises` modules: `lookup` (and A/AAAA `resolve`) answered by the host behind
// the SSRF guard, as sockets are; the other record types are not available.
(function (S) {
  var isIP = S.load("net").isIP;
  function coded(code, message, hostname) {
    var err = new Error(message);
    err.code = code;
    err.syscall = "getaddrinfo";
    if (hostname !== undefined) err.hostname = hostname;
    return err;
  }
  function lookupAll(hostname, family) {
    var ip = isIP(hostname);
    if (ip) return Promise.resolve([{ address: String(hostname), family: ip }]);
    var request = { hostname: String(hostname) };
    if (family === 4 || family === 6) request.family = family;
    return S.hostAsync("dns", S.jsonStringify(request)).then(
      (json) => {
        var all = S.jsonParse(json);
        if (all.length === 0) throw coded("ENOTFOUND", "getaddrinfo ENOTFOUND " + hostname, hostname);
        return all;
      },
      (e) => {
        throw coded(e.code || "ENOTFOUND", S.load("net").explain(e, "dns.lookup " + hostname), hostname);
      },
    );
  }
  function options(given) {
    if (typeof given === "number") return { family: given };
    return given || {};
  }
  function lookupPromise(hostname, given) {
    var opts = options(given);
    var family = opts.family === "IPv4" ? 4 : opts.family === "IPv6" ? 6 : Number(opts.family) || 0;
    if (!hostname) return Promise.resolve(opts.all ? [] : { address: null, family: family === 6 ? 6 : 4 });
    return lookupAll(hostname, family).then((all) => (opts.all ? all : all[0]));
  }
  function lookup(hostname, given, cb) {
    if (typeof given === "function") {
      cb = given;
      given = {};
    }
    var all = options(given).all;
    lookupPromise(hostname, given).then(
      (found) => (all ? cb(null, found) : cb(null, found.address, found.family)),
      (e) => cb(e),
    );
  }
  function resolveFamily(family) {
    return (hostname) => lookupAll(hostname, family).then((all) => all.map((a) => a.address));
  }
  function notAvailable(name) {
    return () =>
      Promise.reject(coded("ENOTSUP", "dns." + name + "() is not available in the Hookline sandbox"));
  }
  var UNAVAILABLE = ["resolveAny", "resolveCaa", "resolveCname", "resolveMx", "resolveNaptr", "resolveNs"];
  UNAVAILABLE.push("resolvePtr", "resolveSoa", "resolveSrv", "resolveTxt", "reverse", "lookupService");
  function makePromises() {
    var api = {
      lookup: lookupPromise,
      resolve: (hostname, type) =>
        type === undefined || type === "A" || type === "AAAA"
          ? resolveFamily(type === "AAAA" ? 6 : 4)(hostname)
          : notAvailable("resolve")(),
      resolve4: resolveFamily(4),
      resolve6: resolveFamily(6),
      getServers: () => [],
      setServers: () => {},
      setDefaultResultOrder: () => {},
      getDefaultResultOrder: () => "verbatim",
    };
    for (var name of UNAVAILABLE) api[name] = notAvailable(name);
    return api;
  }
  var promises = makePromises();
  class Resolver {
    cancel() {}
    setLocalAddress() {}
  }
  for (var key of Object.keys(promises)) Resolver.prototype[key] = promises[key];
  promises.Resolver = Resolver;
  function callbackForm(fn) {
    return function () {
      var args = Array.prototype.slice.call(arguments);
      var cb = args.pop();
      fn.apply(undefined, args).then(
        (value) => cb(null, value),
        (e) => cb(e),
      );
    };
  }
  var dns = {
    lookup: lookup,
    promises: promises,
    ADDRCONFIG: 1024,
    V4MAPPED: 2048,
    ALL: 256,
    NOTFOUND: "ENOTFOUND",
    NODATA: "ENODATA",
    SERVFAIL: "ESERVFAIL",
    CONNREFUSED: "ECONNREFUSED",
    TIMEOUT: "ETIMEOUT",
  };
  var SYNC = ["getServers", "setServers", "setDefaultResultOrder", "getDefaultResultOrder"];
  class CallbackResolver {
    cancel() {}
    setLocalAddress() {}
  }
  for (var fnName of Object.keys(promises)) {
    if (fnName === "lookup" || fnName === "Resolver") continue;
    dns[fnName] = SYNC.indexOf(fnName) >= 0 ? promises[fnName] : callbackForm(promises[fnName]);
    CallbackResolver.prototype[fnName] = dns[fnName];
  }
  dns.Resolver = CallbackResolver;
  dns.default = dns;
  return { modules: { dns: dns, "dns/promises": promises } };
});
