/**
 * Every error code Hookline can return, with the HTTP status it maps to.
 *
 * Codes are stable: they are part of the public contract of the REST API, the CLI and the
 * package APIs. `docs/errors.md` documents each one, and a test checks that the two agree.
 * Add a code here (grouped by the package that raises it) before using it anywhere.
 */
export const ERROR_CODES = {
  // Generic request errors.
  bad_request: 400,
  invalid_json: 400,
  conflicting_parameter: 400,
  invalid_idempotency_key: 400,
  validation_failed: 422,
  unauthorized: 401,
  operator_key_required: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,

  // Component model (@hookline/core).
  invalid_component: 422,
  invalid_prop_value: 422,
  configuration_error: 422,
  invalid_emit: 422,
  dedupe_missing_id: 422,
  dedupe_non_numeric_id: 422,
  invalid_respond: 422,
  no_response: 502,
  run_failed: 500,
  invalid_timer: 422,
  invalid_registry_key: 422,
  invalid_version: 422,
  invalid_workflow: 422,

  // Loading component code (@hookline/runtime).
  bundle_failed: 422,
  module_not_found: 422,
  load_failed: 422,
  native_module_unsupported: 422,

  // The engine (@hookline/engine).
  hook_failed: 422,
  account_in_use: 409,
  account_required: 422,
  invalid_account: 422,
  invalid_url: 422,
  source_busy: 429,
  execution_too_large: 413,

  // Managed authentication (@hookline/engine): OAuth clients, the connect flow, refreshes.
  invalid_oauth_client: 422,
  oauth_not_configured: 422,
  oauth_state_invalid: 400,
  oauth_denied: 400,
  oauth_exchange_failed: 400,
  oauth_provider_error: 502,

  // The component registry (@hookline/engine).
  component_version_exists: 409,
  registry_key_taken: 409,

  // Data stores (@hookline/engine): `data_store` props and /v1/data_stores.
  data_store_full: 409,
  data_store_value_too_large: 413,
  invalid_data_store: 422,

  // Apphook subscriptions: a source listening to sources' emits.
  invalid_listener: 422,
  subscription_cycle: 422,

  // Workflow destinations: `$.send.email` and `$.send.s3` (@hookline/delivery).
  invalid_send: 422,
  destination_not_configured: 501,
  destination_rejected: 502,
  destination_unreachable: 502,
} as const;

/** A stable, documented error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Returns true when `code` is a known error code. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The serializable shape of every Hookline error (the REST API's `error` object). */
export interface HooklineErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * The one error family every Hookline package throws. It carries a stable `code`, the HTTP
 * `status` that code maps to, a message for people, and optional machine-readable `details`.
 *
 * @example
 * ```ts
 * throw new HooklineError("not_found", "No source dc_123 in this workspace");
 * ```
 */
export class HooklineError extends Error {
  /** The stable error code. */
  readonly code: ErrorCode;
  /** The HTTP status the code maps to. */
  readonly status: number;
  /** Machine-readable details, such as the list of validation problems. */
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HooklineError";
    this.code = code;
    this.status = ERROR_CODES[code];
    if (details !== undefined) this.details = details;
  }

  /** The `{code, message, details}` body the REST API sends. */
  toJSON(): HooklineErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * The body of an error reply, `{ error: { code, message, details? } }`: the one shape every error
 * answer of the REST API and the ingress has (a {@link HooklineError}'s is `{ error: e.toJSON() }`).
 *
 * @example
 * ```ts
 * errorBody("not_found", "No source listens at this endpoint");
 * // { error: { code: "not_found", message: "No source listens at this endpoint" } }
 * ```
 */
export function errorBody(code: ErrorCode, message: string, details?: unknown): { error: HooklineErrorBody } {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** Returns true for a {@link HooklineError} (also one from another copy of this package). */
export function isHooklineError(error: unknown): error is HooklineError {
  if (error instanceof HooklineError) return true;
  if (!(error instanceof Error) || error.name !== "HooklineError") return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && isErrorCode(code);
}

/**
 * An error a component throws to tell the user their configuration is wrong (for example from
 * `additionalProps` when a required header row cannot be found). Its message is shown to the
 * user as is. Compatible with `ConfigurationError` from `@pipedream/platform`.
 *
 * @example
 * ```ts
 * throw new ConfigurationError("The sheet has no header row");
 * ```
 */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigurationError";
  }
}

/** One problem found while validating a component definition or prop values. */
export interface Problem {
  /** A stable code, such as `prop_min_on_non_integer`. */
  code: string;
  /** Where the problem is, as a dotted path: `props.count.min`. Empty for the whole object. */
  path: string;
  /** What is wrong, for people. */
  message: string;
}
