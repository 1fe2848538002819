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
import type { OAuthOptions } from "./options.js";
import { createRefresher } from "./refresh.js";

export type { CatalogueEntry, OAuthSettings, TokenAuthMethod } from "./catalogue.js";
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
export type { OAuthOptions } from "./options.js";

/** Managed auth of one engine. @internal */
export function createOAuth(
  ctx: Pick<
    EngineContext,
    "store" | "box" | "transport" | "clock" | "baseUrl" | "nodeId" | "notify" | "wakeWorker"
  >,
  options: OAuthOptions = {},
) {
  const clients = createOAuthClients(ctx);
  const refresher = createRefresher(ctx, clients.resolve, options.refreshSkewMs ?? 120_000);
  const every = options.refreshIntervalMs ?? 60_000;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;
  return {
    clients: clients.api,
    connect: createConnect(ctx, clients.resolve, options.allowedOrigins ?? []),
    connectTokens: createConnectTokens(ctx),
    refresher,
    /** Refreshes the tokens due every `refreshIntervalMs` (one pass at a time), until `stop`. */
    loop: {
      start() {
        if (every === false || timer) return;
        timer = setInterval(() => {
          running ??= refresher
            .refreshDue()
            .catch((error: unknown) => console.error("[hookline] refreshing OAuth tokens failed:", error))
            .finally(() => {
              running = undefined;
            });
        }, every);
        timer.unref();
      },
      async stop() {
        clearInterval(timer);
        timer = undefined;
        await running;
      },
    },
  };
}
