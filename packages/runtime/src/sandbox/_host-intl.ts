/**
 * `Intl` for the sandbox (QuickJS has none): the guest's formatters (guest/intl.js) hand their
 * locales, options and values to Node's own Intl here. The default time zone is UTC, as on
 * Pipedream's workers, whatever the host's is.
 */
import { LRUCache } from "lru-cache";

const KINDS = {
  DateTimeFormat: Intl.DateTimeFormat,
  NumberFormat: Intl.NumberFormat,
  Collator: Intl.Collator,
  PluralRules: Intl.PluralRules,
  RelativeTimeFormat: Intl.RelativeTimeFormat,
  ListFormat: Intl.ListFormat,
  DisplayNames: Intl.DisplayNames,
  Segmenter: (Intl as unknown as { Segmenter: typeof Intl.Collator }).Segmenter,
} as const;
type Kind = keyof typeof KINDS;

interface Spec {
  kind: Kind;
  locales?: string | string[];
  options?: Record<string, unknown>;
}

const formatters = new LRUCache<string, any>({ max: 200 });

function formatter(spec: Spec): any {
  const key = JSON.stringify([spec.kind, spec.locales ?? null, spec.options ?? null]);
  let made = formatters.get(key);
  if (!made) {
    const Ctor = KINDS[spec.kind] as unknown as new (l?: unknown, o?: unknown) => unknown;
    if (!Ctor) throw new TypeError(`Intl.${spec.kind} is not available`);
    const options = { ...(spec.options ?? {}) };
    if (spec.kind === "DateTimeFormat" && options.timeZone === undefined) options.timeZone = "UTC";
    made = new Ctor(spec.locales, options);
    formatters.set(key, made);
  }
  return made;
}

/** A value from the guest: dates and special numbers come tagged. */
function value(v: unknown): unknown {
  if (v && typeof v === "object") {
    const t = v as { $date?: number; $num?: string; $big?: string };
    if (t.$date !== undefined) return t.$date;
    if (t.$num !== undefined) return Number(t.$num);
    if (t.$big !== undefined) return BigInt(t.$big);
  }
  return v;
}

export const INTL_OPS = {
  "intl.resolve": (spec: Spec) => formatter(spec).resolvedOptions(),
  "intl.call": (arg: Spec & { method: string; args: unknown[] }) => {
    const f = formatter(arg);
    const fn = f[arg.method];
    if (typeof fn !== "function")
      throw new TypeError(`Intl.${arg.kind}.prototype.${arg.method} is not a function`);
    const result = fn.apply(f, arg.args.map(value));
    // A Segmenter's segments are an iterable: the guest gets them as an array.
    return arg.kind === "Segmenter" && arg.method === "segment"
      ? Array.from(result as Iterable<unknown>)
      : result;
  },
  "intl.supported": (arg: { kind: Kind | "values"; locales?: string | string[]; key?: string }) => {
    if (arg.kind === "values") return Intl.supportedValuesOf(arg.key as never);
    const Ctor = KINDS[arg.kind] as unknown as { supportedLocalesOf: (l: unknown) => string[] };
    return Ctor.supportedLocalesOf(arg.locales);
  },
  "intl.canonical": (locales: string | string[]) => Intl.getCanonicalLocales(locales),
} as const;
