// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// URL and URLSearchParams (parsing is done by the host's WHATWG parser) and the `url` module.
(function (S) {
  var callHost = S.load("host").callHost;
  function makeURLSearchParams() {
    function enc(s) {
      return encodeURIComponent(s)
        .replace(/%20/g, "+")
        .replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
    }
    function dec(s) {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch (_e) {
        return s;
      }
    }
    class URLSearchParams {
      constructor(init) {
        this._list = [];
        this._url = null;
        if (typeof init === "string") {
          var s = init.charAt(0) === "?" ? init.slice(1) : init;
          for (var part of s.split("&")) {
            if (part === "") continue;
            var eq = part.indexOf("=");
            this._list.push(eq === -1 ? [dec(part), ""] : [dec(part.slice(0, eq)), dec(part.slice(eq + 1))]);
          }
        } else if (init && typeof init[Symbol.iterator] === "function") {
          for (var pair of init) this._list.push([String(pair[0]), String(pair[1])]);
        } else if (init && typeof init === "object") {
          for (var key of Object.keys(init)) this._list.push([key, String(init[key])]);
        }
      }
      _changed() {
        if (this._url) this._url._setSearch(this.toString());
      }
      append(k, v) {
        this._list.push([String(k), String(v)]);
        this._changed();
      }
      delete(k) {
        this._list = this._list.filter((p) => p[0] !== String(k));
        this._changed();
      }
      get(k) {
        var p = this._list.find((x) => x[0] === String(k));
        return p ? p[1] : null;
      }
      getAll(k) {
        return this._list.filter((x) => x[0] === String(k)).map((x) => x[1]);
      }
      has(k) {
        return this._list.some((x) => x[0] === String(k));
      }
      set(k, v) {
        var key = String(k);
        var i = this._list.findIndex((x) => x[0] === key);
        if (i === -1) this._list.push([key, String(v)]);
        else {
          this._list[i][1] = String(v);
          this._list = this._list.filter((x, j) => j <= i || x[0] !== key);
        }
        this._changed();
      }
      sort() {
        this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        this._changed();
      }
      forEach(fn, thisArg) {
        for (var p of this._list) fn.call(thisArg, p[1], p[0], this);
      }
      keys() {
        return this._list.map((p) => p[0])[Symbol.iterator]();
      }
      values() {
        return this._list.map((p) => p[1])[Symbol.iterator]();
      }
      entries() {
        return this._list.map((p) => [p[0], p[1]])[Symbol.iterator]();
      }
      [Symbol.iterator]() {
        return this.entries();
      }
      get size() {
        return this._list.length;
      }
      toString() {
        return this._list.map((p) => enc(p[0]) + "=" + enc(p[1])).join("&");
      }
    }
    return URLSearchParams;
  }
  function makeURL() {
    var FIELDS = [
      "href",
      "protocol",
      "username",
      "password",
      "host",
      "hostname",
      "port",
      "pathname",
      "search",
      "hash",
    ];
    class URL {
      constructor(input, base) {
        this._p = callHost("url", {
          input: String(input),
          base: base === undefined ? undefined : String(base),
        });
        this._sp = null;
      }
      static canParse(input, base) {
        try {
          new URL(input, base);
          return true;
        } catch (_e) {
          return false;
        }
      }
      _setSearch(search) {
        this._p = callHost("url.set", { href: this._p.href, field: "search", value: search });
      }
      get origin() {
        return this._p.origin;
      }
      get searchParams() {
        if (!this._sp) {
          this._sp = new URLSearchParams(this._p.search);
          this._sp._url = this;
        }
        return this._sp;
      }
      toString() {
        return this._p.href;
      }
      toJSON() {
        return this._p.href;
      }
    }
    FIELDS.forEach((field) => {
      Object.defineProperty(URL.prototype, field, {
        get: function () {
          return this._p[field];
        },
        set: function (value) {
          this._p = callHost("url.set", { href: this._p.href, field: field, value: String(value) });
          if (this._sp && field !== "search") this._sp = null;
          if (field === "search" || field === "href") this._sp = null;
        },
      });
    });
    return URL;
  }
  var URLSearchParams = makeURLSearchParams();
  var URL = makeURL();
  function makeUrlModule() {
    var mod = {
      URL: URL,
      URLSearchParams: URLSearchParams,
      parse: (str) => {
        var u = new URL(str);
        return {
          href: u.href,
          protocol: u.protocol,
          host: u.host,
          hostname: u.hostname,
          port: u.port || null,
          pathname: u.pathname,
          search: u.search || null,
          query: u.search ? u.search.slice(1) : null,
          hash: u.hash || null,
          path: u.pathname + u.search,
        };
      },
      format: (u) => (typeof u === "string" ? u : u.href || String(u)),
    };
    mod.default = mod;
    return mod;
  }

  return { URL: URL, URLSearchParams: URLSearchParams, modules: { url: makeUrlModule() } };
});
