/**
 * TypeBox schemas of the component model, one per table of SPEC.md. They describe the serializable
 * form of a definition: where SPEC allows a function (methods, hooks, `run`, dynamic `options`),
 * the schema accepts a function or the `{ "$fn": true }` marker the runtime puts in its place when
 * it serializes a definition out of the sandbox.
 */
import Type, { type Static } from "typebox";
import { TimerConfigSchema } from "./timers.js";

/** A function, or `{ "$fn": true }` standing for one in a serialized definition. */
export const FunctionSchema = Type.Unknown({ description: "A function (or { $fn: true } when serialized)." });

/** Returns true for a function or the `{ "$fn": true }` marker. */
export function isFunctionLike(value: unknown): boolean {
  return (
    typeof value === "function" ||
    (typeof value === "object" && value !== null && (value as { $fn?: unknown }).$fn === true)
  );
}

/**
 * What value a prop of a type takes from the user: a user-input type (`string`, `object`...), a
 * `timer` or `app` configuration, or `none` (wired by the platform, or display only).
 */
export type PropValueType = "boolean" | "integer" | "string" | "object" | "any" | "app" | "timer" | "none";

/**
 * Every prop type: SPEC's prop type table, then the types SPEC does not list but real Pipedream
 * components use (see docs/components.md), with where each may be used and what value it takes.
 */
export const PROP_TYPES = {
  app: { array: false, sources: true, actions: true, value: "app" },
  boolean: { array: true, sources: true, actions: true, value: "boolean" },
  integer: { array: true, sources: true, actions: true, value: "integer" },
  string: { array: true, sources: true, actions: true, value: "string" },
  object: { array: false, sources: true, actions: true, value: "object" },
  any: { array: false, sources: false, actions: true, value: "any" },
  "$.interface.http": { array: false, sources: true, actions: false, value: "none" },
  "$.interface.timer": { array: false, sources: true, actions: false, value: "timer" },
  "$.service.db": { array: false, sources: true, actions: false, value: "none" },
  /** Not in SPEC: a source fed by an app's events (`appProp`, `eventNames`); takes no value. */
  "$.interface.apphook": { array: false, sources: true, actions: false, value: "none" },
  /** Not in SPEC: Pipedream's display-only notice (`alertType`, `content`); takes no value. */
  alert: { array: false, sources: true, actions: true, value: "none" },
  /** Not in SPEC: an action's request builder; its value is `{ url, method, headers, params, body }`. */
  http_request: { array: false, sources: false, actions: true, value: "object" },
  /** Not in SPEC: a named key-value store of the workspace; its value is the store's name (or `ds_` id). */
  data_store: { array: false, sources: true, actions: true, value: "string" },
  /** Not in SPEC: a folder of the component's `/tmp` synced by the platform (`accessMode`, `sync`). */
  dir: { array: false, sources: true, actions: true, value: "none" },
  /** Not in SPEC: a SQL query (a string, or `{ query, params }`) for a database app (`auth.app`). */
  sql: { array: false, sources: true, actions: true, value: "any" },
} as const satisfies Record<
  string,
  { array: boolean; sources: boolean; actions: boolean; value: PropValueType }
>;

/**
 * An app-specific prop type such as `$.discord.channel` or `$.discord.channel[]`: accepted (with a
 * warning) and taken as a string (or a string array).
 */
export const APP_SPECIFIC_PROP_TYPE = /^\$\.(?!interface\.|service\.)[a-z0-9_]+\.[A-Za-z0-9_.]+(\[\])?$/;

/**
 * What value a prop of `type` takes (see {@link PropValueType}); `undefined` for an unknown type.
 * An array type (`string[]`) takes an array of its base's values.
 *
 * @example
 * ```ts
 * propValueType("integer[]"); // "integer"
 * propValueType("$.discord.channel"); // "string"
 * propValueType("alert"); // "none"
 * ```
 */
export function propValueType(type: string): PropValueType | undefined {
  const base = type.endsWith("[]") ? type.slice(0, -2) : type;
  const info = (PROP_TYPES as Record<string, { value: PropValueType }>)[base];
  if (info) return info.value;
  return APP_SPECIFIC_PROP_TYPE.test(type) ? "string" : undefined;
}

/** A prop type name without the `[]` suffix. */
export type BasePropType = keyof typeof PROP_TYPES;

/** A user-input prop type, including the array forms (`string[]`...). */
export const UserInputPropTypeSchema = Type.Union([
  Type.Literal("boolean"),
  Type.Literal("integer"),
  Type.Literal("string"),
  Type.Literal("object"),
  Type.Literal("any"),
  Type.Literal("boolean[]"),
  Type.Literal("integer[]"),
  Type.Literal("string[]"),
]);

/** One static option: a plain value, or `{ label, value }`. */
export const OptionSchema = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Object({ label: Type.String(), value: Type.Unknown() }),
]);

/** SPEC's "properties of a user input prop" table. */
export const UserInputPropSchema = Type.Object({
  type: Type.Optional(UserInputPropTypeSchema),
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  options: Type.Optional(Type.Union([Type.Array(OptionSchema), FunctionSchema])),
  useQuery: Type.Optional(Type.Boolean()),
  optional: Type.Optional(Type.Boolean()),
  propDefinition: Type.Optional(Type.Array(Type.Unknown(), { minItems: 2, maxItems: 3 })),
  default: Type.Optional(Type.Unknown()),
  secret: Type.Optional(Type.Boolean()),
  min: Type.Optional(Type.Integer()),
  max: Type.Optional(Type.Integer()),
  reloadProps: Type.Optional(Type.Boolean()),
});

/** A user input prop. */
export type UserInputProp = Static<typeof UserInputPropSchema>;

/** SPEC's timer interface prop. */
export const TimerPropSchema = Type.Object({
  type: Type.Literal("$.interface.timer"),
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  default: Type.Optional(TimerConfigSchema),
});

/** SPEC's HTTP interface prop. */
export const HttpPropSchema = Type.Object({
  type: Type.Literal("$.interface.http"),
  customResponse: Type.Optional(Type.Boolean()),
});

/** SPEC's database service prop. */
export const DbPropSchema = Type.Object({ type: Type.Literal("$.service.db") });

/** SPEC's app prop (also what `defineApp` returns). */
export const AppPropSchema = Type.Object({
  type: Type.Literal("app"),
  app: Type.String({ minLength: 1 }),
  propDefinitions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  methods: Type.Optional(Type.Record(Type.String(), FunctionSchema)),
});

/** Any prop, in the object form (the `"$.service.db"` string shorthand is normalized first). */
export const PropSchema = Type.Union([
  UserInputPropSchema,
  TimerPropSchema,
  HttpPropSchema,
  DbPropSchema,
  AppPropSchema,
]);

/** SPEC's component object table. */
export const ComponentSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  key: Type.Optional(Type.String({ minLength: 1 })),
  type: Type.Optional(Type.Union([Type.Literal("action"), Type.Literal("source")])),
  version: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  props: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  methods: Type.Optional(Type.Record(Type.String(), FunctionSchema)),
  hooks: Type.Optional(
    Type.Object({
      deploy: Type.Optional(FunctionSchema),
      activate: Type.Optional(FunctionSchema),
      deactivate: Type.Optional(FunctionSchema),
    }),
  ),
  dedupe: Type.Optional(Type.Union([Type.Literal("unique"), Type.Literal("greatest"), Type.Literal("last")])),
  additionalProps: Type.Optional(FunctionSchema),
  run: FunctionSchema,
});

/** SPEC's async options arguments `{ page, prevContext, query }`. */
export const OptionsArgsSchema = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0 })),
  prevContext: Type.Optional(Type.Unknown()),
  query: Type.Optional(Type.String()),
});

/** What an async options method may return, normalized. */
export const OptionsResultSchema = Type.Object({
  options: Type.Array(OptionSchema),
  context: Type.Optional(Type.Object({ nextPageToken: Type.Optional(Type.Unknown()) })),
});

/** SPEC's HTTP interface event, what `run(event)` gets for a request. */
export const HttpEventSchema = Type.Object({
  method: Type.String(),
  path: Type.String(),
  query: Type.Record(Type.String(), Type.Unknown()),
  headers: Type.Record(Type.String(), Type.String()),
  bodyRaw: Type.String(),
  body: Type.Unknown(),
});

/** The event an HTTP interface passes to `run(event)`. */
export type HttpEvent = Static<typeof HttpEventSchema>;
