/**
 * Typed identity helpers for writing components, shape-compatible with Pipedream's
 * `defineSource`/`defineAction`/`defineApp` (from `@pipedream/types`): a component written for
 * Pipedream type-checks here, and `this` inside `run`, hooks and methods is typed loosely enough
 * for real components (prop values, methods and apps are reached through `this`).
 */
import type { DedupeStrategy } from "./dedupe.js";
import type { EmitMeta } from "./emit.js";
import type { RespondArgs } from "./respond.js";
import type { TimerConfig } from "./timers.js";

/** `[app, propDefinitionName, inputValues?]`: reuses a prop defined in an app. */
export type PropDefinitionReference = [
  app: AppDefinition,
  propDefinitionName: string,
  inputValues?: Record<string, unknown> | ((configuredProps: Record<string, any>) => Record<string, unknown>),
];

/** SPEC's async options arguments, plus the inputValues of a propDefinition. */
export interface OptionsContext {
  page?: number;
  prevContext?: any;
  query?: string;
  [inputValue: string]: any;
}

/** A user-input prop (SPEC's "properties of a user input prop" table). */
export interface UserInputPropDefinition {
  type?:
    | "boolean"
    | "integer"
    | "string"
    | "object"
    | "any"
    | "boolean[]"
    | "integer[]"
    | "string[]"
    | (string & {});
  label?: string;
  description?: string;
  /** Static choices, or a method returning them (async options). */
  options?: unknown[] | ((this: any, context: OptionsContext) => unknown);
  useQuery?: boolean;
  optional?: boolean;
  propDefinition?: PropDefinitionReference;
  default?: unknown;
  secret?: boolean;
  min?: number;
  max?: number;
  reloadProps?: boolean;
  [extra: string]: unknown;
}

/** `$.interface.timer`. */
export interface TimerPropDefinition {
  type: "$.interface.timer";
  label?: string;
  description?: string;
  default?: TimerConfig;
  [extra: string]: unknown;
}

/** `$.interface.http`. */
export interface HttpPropDefinition {
  type: "$.interface.http";
  customResponse?: boolean;
  [extra: string]: unknown;
}

/** `$.service.db`. */
export interface DbPropDefinition {
  type: "$.service.db";
}

/** Any prop: an object, or the string shorthand (`"$.service.db"`, `"$.interface.http"`). */
export type PropDefinitionInput =
  | UserInputPropDefinition
  | TimerPropDefinition
  | HttpPropDefinition
  | DbPropDefinition
  | AppDefinition
  | "$.service.db"
  | "$.interface.http"
  | "$.interface.timer";

/** An app (SPEC's app props table): what `defineApp` takes and an `app` prop holds. */
export interface AppDefinition {
  type: "app";
  app: string;
  propDefinitions?: Record<string, UserInputPropDefinition>;
  /** App methods, called as `this.<method>()` inside the app and `this.<appProp>.<method>()` from a component. */
  methods?: Record<string, (this: any, ...args: any[]) => any>;
  [extra: string]: unknown;
}

/** `this` inside a component's run, hooks, methods and additionalProps. */
export interface ComponentThis {
  /** Emits an event (sources). */
  $emit(event?: unknown, meta?: EmitMeta): void;
  /** Prop values, methods, `db`, interfaces and apps, by name. */
  [member: string]: any;
}

/** The `$` an action's `run({ $, steps })` receives (SPEC's action step data table). */
export interface ActionContext {
  /** Names an export, read by later steps as `steps.<step>.<name>`; `$summary` is the success message. */
  export(name: string, value: unknown): void;
  /** Issues the workflow's HTTP response. */
  respond(args: RespondArgs): unknown;
  /** Flow control. */
  flow: {
    /** Ends the whole workflow; `return $.flow.exit("reason")`. */
    exit(reason?: string): unknown;
  };
  send: {
    /** Sends an HTTP request after the step. */
    http(request: unknown): void;
    /** Sends an email. */
    email(message: unknown): void;
    /** Stores an object in S3. */
    s3(object: unknown): void;
    /** Emits an event from the workflow. */
    emit(event: unknown): void;
    /** Sends a server-sent event. */
    sse(event: unknown): void;
  };
  [member: string]: any;
}

interface CommonDefinition {
  name: string;
  key?: string;
  version: string;
  description?: string;
  props?: Record<string, PropDefinitionInput>;
  /** Helper functions, called as `this.<method>()`. */
  methods?: Record<string, (this: any, ...args: any[]) => any>;
  /** Returns more props after a `reloadProps` prop changes; gets the previous prop definitions. */
  additionalProps?: (this: any, previousPropDefs: Record<string, any>) => unknown;
  [extra: string]: unknown;
}

/** A source (SPEC's component object table, `type` absent or `source`). */
export interface SourceDefinition extends CommonDefinition {
  type?: "source";
  hooks?: {
    /** Runs once when the source is deployed. */
    deploy?(this: any): unknown;
    /** Runs on each deploy and update. */
    activate?(this: any): unknown;
    /** Runs on each update and delete. */
    deactivate?(this: any): unknown;
  };
  dedupe?: DedupeStrategy;
  /** Runs on each trigger event; emits with `this.$emit`. */
  run(this: any, event: any): unknown;
}

/** An action (SPEC's component object table, `type: "action"`). */
export interface ActionDefinition extends CommonDefinition {
  type: "action";
  /** Runs the step; returns its `$return_value`. */
  run(this: any, args: { $: ActionContext; steps: any }): unknown;
}

/**
 * Defines a source. Returns its argument unchanged; it only adds types.
 *
 * @example
 * ```ts
 * export default defineSource({
 *   name: "New Request",
 *   version: "0.0.1",
 *   dedupe: "unique",
 *   props: { http: "$.interface.http" },
 *   run(event) {
 *     this.$emit(event.body, { id: event.headers["x-request-id"], summary: "New request" });
 *   },
 * });
 * ```
 */
export function defineSource<const T extends SourceDefinition>(definition: T & ThisType<ComponentThis>): T {
  return definition;
}

/**
 * Defines an action. Returns its argument unchanged; it only adds types.
 *
 * @example
 * ```ts
 * export default defineAction({
 *   name: "Add",
 *   key: "math-add",
 *   version: "0.1.0",
 *   type: "action",
 *   props: { a: { type: "integer" }, b: { type: "integer" } },
 *   async run({ $ }) {
 *     $.export("$summary", "Added");
 *     return this.a + this.b;
 *   },
 * });
 * ```
 */
export function defineAction<const T extends ActionDefinition>(definition: T & ThisType<ComponentThis>): T {
  return definition;
}

/**
 * Defines an app (used as an `app` prop). Returns its argument unchanged; it only adds types.
 *
 * @example
 * ```ts
 * export default defineApp({
 *   type: "app",
 *   app: "github",
 *   propDefinitions: { repo: { type: "string", label: "Repository" } },
 *   methods: {
 *     token() {
 *       return this.$auth.oauth_access_token;
 *     },
 *   },
 * });
 * ```
 */
export function defineApp<const T extends AppDefinition>(definition: T & ThisType<ComponentThis>): T {
  return definition;
}
