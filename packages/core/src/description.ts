/**
 * Serializable descriptions of component definitions: what the runtime returns after loading
 * code, what the store keeps as a saved component's `configurable_props`, and what the REST API,
 * CLI and UI show. Functions in a definition appear here only as flags (`dynamicOptions`,
 * `methods`, `hooks`, `hasAdditionalProps`).
 */
import type { Problem } from "./errors.js";
import type { PropValueType } from "./schemas.js";

/** A serializable prop, as the runtime describes it (propDefinitions already resolved). */
export interface PropDescription {
  /** `string`, `integer[]`, `app`, `$.interface.http`, `$.service.db`... */
  type: string;
  label?: string;
  description?: string;
  optional?: boolean;
  default?: unknown;
  secret?: boolean;
  min?: number;
  max?: number;
  /** Static options, as the component declared them. */
  options?: unknown[];
  /** True when options come from a method (async options). */
  dynamicOptions?: boolean;
  useQuery?: boolean;
  reloadProps?: boolean;
  /** For `app` props: the app's name slug. */
  app?: string;
  /** For `$.interface.http`: whether the component answers with `respond()` itself. */
  customResponse?: boolean;
  /**
   * For prop types outside SPEC's table (`alert`, `dir`, `data_store`, `http_request`, `sql`,
   * `$.interface.apphook`, app-specific `$.<app>.<thing>`): the value it takes, so that a form or
   * a prompt knows what to ask. `none`: never asked (display only, or wired by the platform).
   */
  valueType?: PropValueType;
  /** For props built from an app's propDefinition: which app prop and which definition. */
  propDefinition?: { appProp: string; name: string; hasInputValues: boolean };
  /** Any other serializable fields the author set. */
  [extra: string]: unknown;
}

/** A serializable description of a loaded component definition. */
export interface ComponentDescription {
  /** `source` (also when the author left `type` out) or `action`. */
  type: "source" | "action";
  name: string;
  key?: string;
  version: string;
  description?: string;
  dedupe?: "unique" | "greatest" | "last";
  props: Record<string, PropDescription>;
  /** Names of the methods in `methods`. */
  methods: string[];
  /** Names of the hooks present (`deploy`, `activate`, `deactivate`). */
  hooks: string[];
  /** True when the component defines `additionalProps`. */
  hasAdditionalProps: boolean;
  /**
   * SPEC rules the definition breaks that Pipedream accepts (see `validateComponent`), when there
   * are any: shown to the author, refused only when publishing strictly.
   */
  warnings?: Problem[];
}
