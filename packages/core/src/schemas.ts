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

/** Every prop type of SPEC's prop type table, with where it may be used. */
export const PROP_TYPES = {
  app: { array: false, sources: true, actions: true },
  boolean: { array: true, sources: true, actions: true },
  integer: { array: true, sources: true, actions: true },
  string: { array: true, sources: true, actions: true },
  object: { array: false, sources: true, actions: true },
  any: { array: false, sources: false, actions: true },
  "$.interface.http": { array: false, sources: true, actions: false },
  "$.interface.timer": { array: false, sources: true, actions: false },
  "$.service.db": { array: false, sources: true, actions: false },
  /** Not in SPEC: Pipedream's display-only notice (`alertType`, `content`); takes no value. */
  alert: { array: false, sources: true, actions: true },
} as const satisfies Record<string, { array: boolean; sources: boolean; actions: boolean }>;

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
