/**
 * `@hookline/connect/account`: the shape of a connected account, without the browser code, for
 * servers and apps that read `/v1/accounts` (Hookline's own web UI does).
 *
 * @example
 * ```ts
 * import type { ConnectedAccount } from "@hookline/connect/account";
 * const accounts: ConnectedAccount[] = (await (await fetch(`${base}/v1/accounts`, { headers })).json()).data;
 * ```
 * @packageDocumentation
 */

/** A connected account as Hookline returns it (never its credentials). */
export interface ConnectedAccount {
  /** `apn_` id: configure app props with `{ authProvisionId: id }` (or `{ externalUserId }`). */
  id: string;
  app: string;
  name: string;
  oauth: boolean;
  status: "active" | "needs_reconnect";
  external_user_id: string | null;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}
