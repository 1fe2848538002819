/**
 * The subset of semantic-version ranges that import specifiers use (`pkg@1.2.3`, `pkg@~1.2`,
 * `pkg@^1`, `>=1 <2`, `1.x`, `a || b`, `*`, `latest`). Prereleases match only exact versions.
 */

type Version = [number, number, number, string];

/** Parses `1.2.3` or `1.2.3-beta.1` (a leading `v` allowed); undefined when not a version. */
export function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ?? ""];
}

/** Compares two versions (prerelease sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  if (x[3] === y[3]) return 0;
  if (x[3] === "") return 1;
  if (y[3] === "") return -1;
  return x[3] < y[3] ? -1 : 1;
}

type Comparator = (v: Version) => boolean;

function cmp(v: Version, w: [number, number, number]): number {
  for (let i = 0; i < 3; i++) if (v[i] !== w[i]) return (v[i] as number) - (w[i] as number);
  return 0;
}

/** A partial version `1`, `1.2`, `1.x`, `1.2.3`: the parts given, as numbers. */
function partial(text: string): number[] | undefined {
  const t = text.replace(/^v/, "");
  if (t === "" || t === "*" || t === "x" || t === "X") return [];
  const parts = t.split(".");
  const out: number[] = [];
  for (const p of parts) {
    if (p === "x" || p === "X" || p === "*") break;
    if (!/^\d+$/.test(p)) return undefined;
    out.push(Number(p));
  }
  return out.slice(0, 3);
}

function upperOf(parts: number[]): [number, number, number] {
  if (parts.length === 0) return [Number.POSITIVE_INFINITY, 0, 0];
  if (parts.length === 1) return [(parts[0] as number) + 1, 0, 0];
  return [parts[0] as number, (parts[1] as number) + 1, 0];
}

function full(parts: number[]): [number, number, number] {
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function comparator(token: string): Comparator | undefined {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.*)$/.exec(token);
  if (!m) return undefined;
  const op = m[1] ?? "";
  const rest = m[2] ?? "";
  const exact = parseVersion(rest);
  if (exact && exact[3] !== "" && (op === "" || op === "=")) {
    return (v) => cmp(v, [exact[0], exact[1], exact[2]]) === 0 && v[3] === exact[3];
  }
  const parts = exact ? [exact[0], exact[1], exact[2]] : partial(rest);
  if (!parts) return undefined;
  const lo = full(parts);
  switch (op) {
    case "^": {
      const first = parts.findIndex((p) => p !== 0);
      const idx = first === -1 ? Math.max(0, parts.length - 1) : first;
      const hi: [number, number, number] =
        parts.length === 0
          ? [Number.POSITIVE_INFINITY, 0, 0]
          : idx === 0
            ? [lo[0] + 1, 0, 0]
            : idx === 1
              ? [lo[0], lo[1] + 1, 0]
              : [lo[0], lo[1], lo[2] + 1];
      return (v) => cmp(v, lo) >= 0 && cmp(v, hi) < 0;
    }
    case "~": {
      const hi: [number, number, number] = parts.length <= 1 ? upperOf(parts) : [lo[0], lo[1] + 1, 0];
      return (v) => cmp(v, lo) >= 0 && cmp(v, hi) < 0;
    }
    case ">=":
      return (v) => cmp(v, lo) >= 0;
    case ">":
      return parts.length === 3 ? (v) => cmp(v, lo) > 0 : (v) => cmp(v, upperOf(parts)) >= 0;
    case "<=":
      return parts.length === 3 ? (v) => cmp(v, lo) <= 0 : (v) => cmp(v, upperOf(parts)) < 0;
    case "<":
      return (v) => cmp(v, lo) < 0;
    default:
      if (parts.length === 3) return (v) => cmp(v, lo) === 0;
      return (v) => cmp(v, lo) >= 0 && cmp(v, upperOf(parts)) < 0;
  }
}

/** True when `version` satisfies `range`. `*`, `latest` and `` accept every release. */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  const r = range.trim();
  if (r === "" || r === "*" || r === "latest" || r === "x") return v[3] === "";
  return r.split("||").some((alternative) => {
    const tokens = alternative
      .trim()
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    // `1.2.3 - 2.3.4` hyphen ranges.
    if (tokens.length === 3 && tokens[1] === "-") {
      const lo = comparator(`>=${tokens[0]}`);
      const hi = comparator(`<=${tokens[2]}`);
      return !!lo && !!hi && lo(v) && hi(v) && v[3] === "";
    }
    const comparators = tokens.map(comparator);
    if (comparators.some((c) => c === undefined)) return false;
    const hasPre = tokens.some((t) => /-/.test(t.replace(/^[\^~<>=]+/, "")));
    if (v[3] !== "" && !hasPre) return false;
    return comparators.every((c) => (c as Comparator)(v));
  });
}

/** The highest version of `versions` that satisfies `range`, or undefined. */
export function maxSatisfying(versions: string[], range: string): string | undefined {
  let best: string | undefined;
  for (const v of versions)
    if (satisfies(v, range) && (best === undefined || compareVersions(v, best) > 0)) best = v;
  return best;
}

/**
 * Splits an import specifier into package name, version range and subpath:
 * `@scope/pkg@^1.2/sub` -> `{ name: "@scope/pkg", range: "^1.2", subpath: "sub" }`.
 */
export function parseSpecifier(spec: string): { name: string; range: string; subpath: string } {
  const scoped = spec.startsWith("@");
  const parts = spec.split("/");
  const nameParts = scoped ? parts.slice(0, 2) : parts.slice(0, 1);
  const subpath = parts.slice(nameParts.length).join("/");
  let last = nameParts[nameParts.length - 1] ?? "";
  let range = "";
  const at = last.indexOf("@");
  if (at > 0) {
    range = last.slice(at + 1);
    last = last.slice(0, at);
  }
  nameParts[nameParts.length - 1] = last;
  return { name: nameParts.join("/"), range, subpath };
}
