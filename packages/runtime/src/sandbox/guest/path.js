// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `path` module (POSIX only, as on Pipedream's Linux) and the `os` module.
(function (S) {
  function assertPath(p, name) {
    if (typeof p !== "string") {
      var err = new TypeError('The "' + (name || "path") + '" argument must be of type string');
      err.code = "ERR_INVALID_ARG_TYPE";
      throw err;
    }
  }
  // Resolves "." and ".." segments; keeps leading ".." of a relative path.
  function normalizeParts(parts, absolute) {
    var out = [];
    for (var part of parts) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
        else if (!absolute) out.push("..");
      } else out.push(part);
    }
    return out;
  }
  function normalize(p) {
    assertPath(p);
    if (p === "") return ".";
    var absolute = p[0] === "/";
    var trailing = p[p.length - 1] === "/";
    var body = normalizeParts(p.split("/"), absolute).join("/");
    if (body === "" && !absolute) body = ".";
    if (body !== "" && trailing) body += "/";
    return (absolute ? "/" : "") + body;
  }
  function join() {
    var parts = [];
    for (var i = 0; i < arguments.length; i++) {
      assertPath(arguments[i]);
      if (arguments[i] !== "") parts.push(arguments[i]);
    }
    return parts.length === 0 ? "." : normalize(parts.join("/"));
  }
  function resolve() {
    var resolved = "";
    for (var i = arguments.length - 1; i >= -1 && resolved[0] !== "/"; i--) {
      var p = i >= 0 ? arguments[i] : S.G.process.cwd();
      assertPath(p);
      if (p !== "") resolved = p + (resolved === "" ? "" : "/" + resolved);
    }
    return "/" + normalizeParts(resolved.split("/"), true).join("/");
  }
  function dirname(p) {
    assertPath(p);
    if (p === "") return ".";
    var end = p.length;
    while (end > 1 && p[end - 1] === "/") end--;
    var slash = p.lastIndexOf("/", end - 1);
    if (slash === -1) return ".";
    if (slash === 0) return "/";
    var dir = p.slice(0, slash);
    while (dir.length > 1 && dir[dir.length - 1] === "/") dir = dir.slice(0, -1);
    return dir;
  }
  function basename(p, ext) {
    assertPath(p);
    var end = p.length;
    while (end > 0 && p[end - 1] === "/") end--;
    var base = p.slice(p.lastIndexOf("/", end - 1) + 1, end);
    if (ext !== undefined && base !== ext && base.endsWith(ext))
      base = base.slice(0, base.length - ext.length);
    return base;
  }
  function extname(p) {
    var base = basename(p);
    var dot = base.lastIndexOf(".");
    return dot <= 0 ? "" : base.slice(dot);
  }
  function relative(from, to) {
    var a = resolve(from).split("/").filter(Boolean);
    var b = resolve(to).split("/").filter(Boolean);
    var i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    var up = [];
    for (var j = i; j < a.length; j++) up.push("..");
    return up.concat(b.slice(i)).join("/");
  }
  function parse(p) {
    assertPath(p);
    var root = p[0] === "/" ? "/" : "";
    var base = basename(p);
    var ext = extname(p);
    var dir = dirname(p);
    return {
      root: root,
      dir: dir === "." && p.indexOf("/") === -1 ? "" : dir,
      base: base,
      ext: ext,
      name: ext ? base.slice(0, base.length - ext.length) : base,
    };
  }
  function format(obj) {
    var dir = obj.dir || obj.root || "";
    var base = obj.base || (obj.name || "") + (obj.ext || "");
    if (!dir) return base;
    return dir === obj.root ? dir + base : dir + "/" + base;
  }
  var path = {
    sep: "/",
    delimiter: ":",
    normalize: normalize,
    join: join,
    resolve: resolve,
    dirname: dirname,
    basename: basename,
    extname: extname,
    relative: relative,
    parse: parse,
    format: format,
    isAbsolute: (p) => {
      assertPath(p);
      return p[0] === "/";
    },
    toNamespacedPath: (p) => p,
  };
  path.posix = path;
  path.default = path;

  var os = {
    EOL: "\n",
    tmpdir: () => "/tmp",
    homedir: () => "/tmp",
    hostname: () => "hookline",
    platform: () => "linux",
    type: () => "Linux",
    arch: () => "x64",
    release: () => "",
    endianness: () => "LE",
    uptime: () => 0,
    cpus: () => [],
    totalmem: () => 0,
    freemem: () => 0,
    loadavg: () => [0, 0, 0],
    networkInterfaces: () => ({}),
    userInfo: () => ({ username: "hookline", uid: -1, gid: -1, shell: null, homedir: "/tmp" }),
    constants: { signals: {}, errno: {} },
  };
  os.default = os;
  return { modules: { path: path, "path/posix": path, os: os } };
});
