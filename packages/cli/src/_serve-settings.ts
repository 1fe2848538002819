/**
 * The limits and outbound rules of `pd serve`: one table of flags, each with its environment
 * variable, turned into the options of `createHookline` and `createHandler`. A flag wins over its
 * variable; a bad value is a `usage` error naming the flag or the variable.
 */
import type { EngineWorkerOptions, HooklineOptions } from "@hookline/engine";
import type { HandlerOptions } from "@hookline/http";
import { _parseDuration, type OptionSpecs, type ParsedArgs } from "./_args.js";
import { CliError } from "./_output.js";

/** What the settings build: engine and handler options. */
export interface ServeSettings {
  engine: Pick<HooklineOptions, "limits" | "retention" | "allowPrivateUrls" | "allowList" | "oauth"> & {
    worker: EngineWorkerOptions;
    /** Sandboxes in a pool of worker threads unless `--sandbox-mode thread`. */
    sandboxes: NonNullable<HooklineOptions["sandboxes"]>;
  };
  handler: Pick<
    HandlerOptions,
    "bodyLimit" | "rateLimit" | "ingressRateLimit" | "workspaceIngressRateLimit" | "maxPageBytes"
  >;
  /** `--flag value` of each setting given, for the banner. */
  given: string[];
}

/** The addresses `--dev` lets webhooks and components reach: loopback only. */
export const DEV_ALLOW_LIST = ["127.0.0.0/8", "::1", "localhost"];

type Kind = "duration" | "bytes" | "count" | "durations" | "rate" | "bucket" | "list" | "flag" | "mode";

/** One setting: its flag, its variable, what it takes and where it goes. */
interface Setting {
  flag: string;
  env: string;
  kind: Kind;
  /** Minimum for durations (ms), sizes (bytes) and counts. */
  min?: number;
  apply(settings: ServeSettings, value: unknown): void;
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Parses a size: bytes, or a number with `kb`, `mb` or `gb` (`64mb`). @internal */
export function _parseBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (SIZE_UNITS[(match[2] ?? "b").toLowerCase()] as number));
}

/** Sets `key` of the object `pick` returns (made when absent) to the value. @internal */
function into<T extends object>(pick: (s: ServeSettings) => T, key: keyof T) {
  return (settings: ServeSettings, value: unknown) => {
    (pick(settings) as Record<keyof T, unknown>)[key] = value;
  };
}

const worker = (s: ServeSettings) => s.engine.worker;
const sandboxes = (s: ServeSettings) => s.engine.sandboxes;
const limits = (s: ServeSettings) => {
  s.engine.limits ??= {};
  return s.engine.limits;
};
const retention = (s: ServeSettings) => {
  s.engine.retention ??= {};
  return s.engine.retention;
};
const handler = (s: ServeSettings) => s.handler;
const MB = 1024 * 1024;

/** Every setting `pd serve` takes beyond its own flags (docs/cli.md lists them with defaults). */
export const SETTINGS: Setting[] = [
  {
    flag: "run-timeout",
    env: "HOOKLINE_RUN_TIMEOUT",
    kind: "duration",
    min: 1,
    apply: into(limits, "runTimeoutMs"),
  },
  {
    flag: "options-timeout",
    env: "HOOKLINE_OPTIONS_TIMEOUT",
    kind: "duration",
    min: 1,
    apply: into(limits, "optionsTimeoutMs"),
  },
  {
    flag: "sandbox-memory",
    env: "HOOKLINE_SANDBOX_MEMORY",
    kind: "bytes",
    min: MB,
    apply: into(limits, "memoryBytes"),
  },
  {
    flag: "result-limit",
    env: "HOOKLINE_RESULT_LIMIT",
    kind: "bytes",
    min: 1024,
    apply: into(limits, "resultBytes"),
  },
  // Sandbox threads and the HTTP deadline (issue 15).
  {
    flag: "http-timeout",
    env: "HOOKLINE_HTTP_TIMEOUT",
    kind: "duration",
    min: 1,
    apply: into(limits, "httpTimeoutMs"),
  },
  {
    flag: "http-memory",
    env: "HOOKLINE_HTTP_MEMORY",
    kind: "bytes",
    min: MB,
    apply: into(limits, "httpMemoryBytes"),
  },
  { flag: "sandbox-mode", env: "HOOKLINE_SANDBOX_MODE", kind: "mode", apply: into(sandboxes, "mode") },
  {
    flag: "sandbox-threads",
    env: "HOOKLINE_SANDBOX_THREADS",
    kind: "count",
    min: 1,
    apply: into(sandboxes, "size"),
  },
  {
    flag: "sandbox-kill-after",
    env: "HOOKLINE_SANDBOX_KILL_AFTER",
    kind: "duration",
    min: 1,
    apply: into(sandboxes, "killAfterMs"),
  },
  {
    flag: "tmp-size",
    env: "HOOKLINE_TMP_SIZE",
    kind: "bytes",
    min: 1024,
    apply: into(limits, "tmpBytes"),
  },
  {
    flag: "max-queued",
    env: "HOOKLINE_MAX_QUEUED",
    kind: "count",
    min: 1,
    apply: into(limits, "maxQueuedInvocations"),
  },
  {
    flag: "max-emits",
    env: "HOOKLINE_MAX_EMITS",
    kind: "count",
    min: 1,
    apply: into(limits, "maxEmitsPerRun"),
  },
  {
    flag: "max-event-size",
    env: "HOOKLINE_MAX_EVENT_SIZE",
    kind: "bytes",
    min: 1024,
    apply: into(limits, "maxEventBytes"),
  },
  {
    flag: "max-data-store-keys",
    env: "HOOKLINE_MAX_DATA_STORE_KEYS",
    kind: "count",
    min: 1,
    apply: into(limits, "maxDataStoreKeys"),
  },
  {
    flag: "max-data-store-value",
    env: "HOOKLINE_MAX_DATA_STORE_VALUE",
    kind: "bytes",
    min: 1024,
    apply: into(limits, "maxDataStoreValueBytes"),
  },
  {
    flag: "keep-events",
    env: "HOOKLINE_KEEP_EVENTS",
    kind: "count",
    min: 1,
    apply: into(retention, "events"),
  },
  {
    flag: "keep-event-bytes",
    env: "HOOKLINE_KEEP_EVENT_BYTES",
    kind: "bytes",
    min: 1024,
    apply: into(retention, "eventBytes"),
  },
  { flag: "keep-logs", env: "HOOKLINE_KEEP_LOGS", kind: "count", min: 1, apply: into(retention, "logs") },
  {
    flag: "keep-log-bytes",
    env: "HOOKLINE_KEEP_LOG_BYTES",
    kind: "bytes",
    min: 1024,
    apply: into(retention, "logBytes"),
  },
  {
    flag: "keep-executions",
    env: "HOOKLINE_KEEP_EXECUTIONS",
    kind: "count",
    min: 1,
    apply: into(retention, "executions"),
  },
  {
    flag: "max-execution-size",
    env: "HOOKLINE_MAX_EXECUTION_SIZE",
    kind: "bytes",
    min: 1024,
    apply: into(limits, "maxExecutionBytes"),
  },
  {
    flag: "retry-schedule",
    env: "HOOKLINE_RETRY_SCHEDULE",
    kind: "durations",
    apply: into(worker, "retrySchedule"),
  },
  {
    flag: "attempt-timeout",
    env: "HOOKLINE_ATTEMPT_TIMEOUT",
    kind: "duration",
    min: 1,
    apply: into(worker, "attemptTimeoutMs"),
  },
  {
    flag: "delivery-concurrency",
    env: "HOOKLINE_DELIVERY_CONCURRENCY",
    kind: "count",
    min: 1,
    apply: into(worker, "concurrency"),
  },
  {
    flag: "webhook-concurrency",
    env: "HOOKLINE_WEBHOOK_CONCURRENCY",
    kind: "count",
    min: 1,
    apply: into(worker, "perWebhookConcurrency"),
  },
  {
    flag: "slow-after",
    env: "HOOKLINE_SLOW_AFTER",
    kind: "duration",
    min: 1,
    apply: into(worker, "slowAfterMs"),
  },
  {
    flag: "slow-concurrency",
    env: "HOOKLINE_SLOW_CONCURRENCY",
    kind: "count",
    min: 1,
    apply: into(worker, "slowConcurrency"),
  },
  {
    flag: "circuit-failures",
    env: "HOOKLINE_CIRCUIT_FAILURES",
    kind: "count",
    min: 1,
    apply: into(worker, "circuitFailures"),
  },
  {
    flag: "circuit-cooldown",
    env: "HOOKLINE_CIRCUIT_COOLDOWN",
    kind: "duration",
    min: 1,
    apply: into(worker, "circuitCooldownMs"),
  },
  {
    flag: "circuit-max-cooldown",
    env: "HOOKLINE_CIRCUIT_MAX_COOLDOWN",
    kind: "duration",
    min: 1,
    apply: into(worker, "circuitMaxCooldownMs"),
  },
  {
    flag: "disable-after",
    env: "HOOKLINE_DISABLE_AFTER",
    kind: "duration",
    min: 1,
    apply: into(worker, "disableAfterMs"),
  },
  {
    flag: "body-limit",
    env: "HOOKLINE_BODY_LIMIT",
    kind: "bytes",
    min: 1,
    apply: into(handler, "bodyLimit"),
  },
  { flag: "rate-limit", env: "HOOKLINE_RATE_LIMIT", kind: "rate", apply: into(handler, "rateLimit") },
  {
    flag: "ingress-rate-limit",
    env: "HOOKLINE_INGRESS_RATE_LIMIT",
    kind: "bucket",
    apply: into(handler, "ingressRateLimit"),
  },
  {
    flag: "workspace-ingress-rate-limit",
    env: "HOOKLINE_WORKSPACE_INGRESS_RATE_LIMIT",
    kind: "bucket",
    apply: into(handler, "workspaceIngressRateLimit"),
  },
  {
    flag: "max-page-size",
    env: "HOOKLINE_MAX_PAGE_SIZE",
    kind: "bytes",
    min: 1024,
    apply: into(handler, "maxPageBytes"),
  },
  {
    flag: "allow-url",
    env: "HOOKLINE_ALLOW_URLS",
    kind: "list",
    apply: (s, v) => {
      s.engine.allowList = [...(s.engine.allowList ?? []), ...(v as string[])];
    },
  },
  {
    flag: "allow-private-urls",
    env: "HOOKLINE_ALLOW_PRIVATE_URLS",
    kind: "flag",
    apply: into((s) => s.engine, "allowPrivateUrls"),
  },
  {
    flag: "connect-origin",
    env: "HOOKLINE_CONNECT_ORIGINS",
    kind: "list",
    apply: (s, v) => {
      s.engine.oauth = {
        ...s.engine.oauth,
        allowedOrigins: [...(s.engine.oauth?.allowedOrigins ?? []), ...(v as string[])],
      };
    },
  },
  {
    flag: "dev",
    env: "HOOKLINE_DEV",
    kind: "flag",
    apply: (s) => {
      s.engine.allowList = [...DEV_ALLOW_LIST, ...(s.engine.allowList ?? [])];
    },
  },
];

/** The `parseArgs` specs of every setting. */
export const SETTING_OPTIONS: OptionSpecs = Object.fromEntries(
  SETTINGS.map((s) => [
    s.flag,
    s.kind === "flag"
      ? { type: "boolean" as const }
      : s.kind === "list"
        ? { type: "string" as const, multiple: true }
        : { type: "string" as const },
  ]),
);

const EXPECTED: Record<Kind, string> = {
  duration: "a duration such as 500ms, 30s, 5m or 2h",
  bytes: "a size such as 512kb, 64mb or a number of bytes",
  count: "a whole number",
  durations: "durations separated by commas, such as 5s,5m,30m,2h",
  rate: "requests per window such as 600/60s, or off",
  bucket: "requests per second and a burst such as 20/s,200 (burst 10 times the rate when left out), or off",
  list: "host names, addresses or CIDR ranges separated by commas",
  flag: "1, true, 0 or false",
  mode: "pool or thread",
};

/** Parses one value of `setting`; `where` names the flag or variable in the error. @internal */
function _value(setting: Setting, text: string, where: string): unknown {
  const bad = () =>
    new CliError("usage", `${where} ${JSON.stringify(text)}: expected ${EXPECTED[setting.kind]}`);
  const atLeast = (n: number | undefined) => {
    if (n === undefined) throw bad();
    const min = setting.min ?? 0;
    if (n < min) {
      const shown =
        setting.kind === "duration" ? `${min}ms` : setting.kind === "bytes" ? `${min} bytes` : `${min}`;
      throw new CliError("usage", `${where} ${JSON.stringify(text)}: must be at least ${shown}`);
    }
    return n;
  };
  switch (setting.kind) {
    case "duration":
      return atLeast(_parseDuration(text));
    case "bytes":
      return atLeast(_parseBytes(text));
    case "count":
      return atLeast(/^\d+$/.test(text.trim()) ? Number(text) : undefined);
    case "durations": {
      const delays = text.split(",").map((part) => _parseDuration(part));
      if (delays.length === 0 || delays.some((d) => d === undefined)) throw bad();
      return delays;
    }
    case "rate": {
      if (text.trim() === "off") return false;
      const match = /^(\d+)\s*\/\s*(.+)$/.exec(text.trim());
      const windowMs = match ? _parseDuration(match[2] as string) : undefined;
      if (!match || !windowMs || Number(match[1]) < 1) throw bad();
      return { requests: Number(match[1]), windowMs };
    }
    case "bucket": {
      if (text.trim() === "off") return false;
      const match = /^(\d+(?:\.\d+)?)\s*\/\s*s(?:\s*,\s*(\d+))?$/.exec(text.trim());
      const perSecond = match ? Number(match[1]) : 0;
      if (!match || !(perSecond > 0)) throw bad();
      const burst = match[2] === undefined ? Math.max(1, Math.ceil(perSecond * 10)) : Number(match[2]);
      if (burst < 1) throw bad();
      return { perSecond, burst };
    }
    case "list":
      return text
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
    case "mode":
      if (text === "pool" || text === "thread") return text;
      throw bad();
    case "flag":
      if (/^(1|true|yes)$/i.test(text)) return true;
      if (/^(0|false|no|)$/i.test(text)) return false;
      throw bad();
  }
}

/**
 * Reads every setting from `args`, else from `env`, into engine and handler options.
 * @example
 * ```ts
 * const settings = readServeSettings(args, process.env);
 * createHookline({ ...settings.engine, store });
 * ```
 */
export function readServeSettings(args: ParsedArgs, env: NodeJS.ProcessEnv): ServeSettings {
  const settings: ServeSettings = {
    engine: { worker: {}, sandboxes: { mode: "pool" } },
    handler: {},
    given: [],
  };
  for (const setting of SETTINGS) {
    const raw = args.values[setting.flag];
    let value: unknown;
    if (setting.kind === "flag" && raw === true) value = true;
    else if (Array.isArray(raw) && raw.length > 0) {
      value = raw.flatMap((text) => _value(setting, String(text), `--${setting.flag}`) as string[]);
    } else if (typeof raw === "string") value = _value(setting, raw, `--${setting.flag}`);
    else if (env[setting.env] !== undefined && env[setting.env] !== "") {
      value = _value(setting, env[setting.env] as string, setting.env);
    }
    if (value === undefined || (setting.kind === "flag" && value === false)) continue;
    setting.apply(settings, value);
    if (setting.kind !== "flag") {
      const shown = Array.isArray(raw) ? raw.join(",") : typeof raw === "string" ? raw : env[setting.env];
      settings.given.push(`--${setting.flag} ${shown}`);
    } else settings.given.push(`--${setting.flag}`);
  }
  return settings;
}

/** The banner line on outbound addresses: what the SSRF guard refuses and what it allows. */
export function outboundLine(settings: ServeSettings): string {
  const { allowPrivateUrls, allowList = [] } = settings.engine;
  if (allowPrivateUrls) return "private and loopback addresses allowed (--allow-private-urls)";
  const dev = DEV_ALLOW_LIST.every((entry) => allowList.includes(entry));
  const extra = allowList.filter((entry) => !dev || !DEV_ALLOW_LIST.includes(entry));
  const allowed = [
    ...(dev ? ["loopback (--dev: 127.0.0.0/8, ::1, localhost)"] : []),
    ...(extra.length > 0 ? [`${extra.join(", ")} (--allow-url)`] : []),
  ];
  if (allowed.length === 0) {
    return "private and loopback addresses refused (SSRF guard); allow them with --dev (loopback), --allow-url or --allow-private-urls";
  }
  return `allowed: ${allowed.join("; ")}; other private addresses refused (SSRF guard)`;
}
