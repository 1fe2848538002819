/**
 * Managed authentication over OAuth (docs/accounts.md): the operator's OAuth clients and the
 * catalogue (clients.ts, catalogue.ts), the connect flow (connect.ts), connect tokens for an
 * embedding app's end users (connect-tokens.ts), refreshes (refresh.ts), all over `oauth4webapi`
 * (protocol.ts). `createOAuth` wires them over the engine's context.
 */
import type { EngineContext } from "../context.js";
import { createOAuthClients } from "./clients.js";
import { createConnect } from "./connect.js";
import { createConnectTokens } from "./connect-tokens.js";
import { createRefresher } from "./refresh.js";

export type { OAuthSettings, TokenAuthMethod } from "./catalogue.js";
export { OAUTH_CATALOGUE } from "./catalogue.js";
export type { OAuthClientInput, OAuthClientsApi, OAuthClientView } from "./clients.js";
export type {
  ConnectApi,
  ConnectFinished,
  ConnectInput,
  ConnectScope,
  ConnectStarted,
  ConnectStatus,
} from "./connect.js";
export type { ConnectTokenGrant, ConnectTokensApi } from "./connect-tokens.js";
export { CONNECT_TOKEN_PREFIX } from "./connect-tokens.js";

/** Options of managed auth (`createHookline({ oauth })`). */
export interface OAuthOptions {
  /**
   * Origins besides the server's own that a connect flow may return to (`return_url`) and post its
   * result to (`opener_origin`), such as the embedding app's front end. A connect token adds its own.
   */
  allowedOrigins?: string[];
  /** Refresh an access token this long before it expires, ms (default 120,000). */
  refreshSkewMs?: number;
}

/** Managed auth of one engine. @internal */
export function createOAuth(
  ctx: Pick<
    EngineContext,
    "store" | "box" | "transport" | "clock" | "baseUrl" | "nodeId" | "notify" | "wakeWorker"
  >,
  options: OAuthOptions = {},
) {
  const clients = createOAuthClients(ctx);
  return {
    clients: clients.api,
    connect: createConnect(ctx, clients.resolve, options.allowedOrigins ?? []),
    connectTokens: createConnectTokens(ctx),
    refresher: createRefresher(ctx, clients.resolve, options.refreshSkewMs ?? 120_000),
  };
}
