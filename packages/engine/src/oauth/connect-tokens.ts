/**
 * Connect tokens (`ctok_...`): what an embedding app's server mints for one of its end users
 * (`POST /v1/connect/tokens {external_user_id}`), so that the end user's browser can run the
 * connect flow and reach that user's accounts, and nothing else. Short-lived; stored by hash.
 */
import { HooklineError } from "@hookline/core";
import { checkExternalUserId } from "../accounts.js";
import type { EngineContext } from "../context.js";
import { newSecret, TICKET, ticketKey } from "./tickets.js";

/** The prefix of connect tokens. */
export const CONNECT_TOKEN_PREFIX = "ctok_";
/** Default and longest life of a connect token, seconds. */
const DEFAULT_TTL_S = 4 * 3600;
const MAX_TTL_S = 24 * 3600;

/** What a connect token reaches. */
export interface ConnectTokenGrant {
  workspaceId: string;
  externalUserId: string;
  /** Origins the hosted page may post its result to and return to (besides the server's). */
  allowedOrigins: string[];
  expiresAt: number;
}

/** Connect tokens: `hookline.connectTokens`. */
export interface ConnectTokensApi {
  /**
   * Mints a token for an end user (default life 4 hours, at most 24).
   *
   * @example
   * ```ts
   * const { token } = await hookline.connectTokens.create(ws.id, { externalUserId: "user-42", allowedOrigins: ["https://app.example.com"] });
   * ```
   */
  create(
    workspaceId: string,
    input: { externalUserId: string; allowedOrigins?: string[]; ttlSeconds?: number },
  ): Promise<{ token: string; expiresAt: number; connectUrl: string }>;
  /** What a presented token reaches, or undefined when unknown or expired. */
  resolve(token: string): Promise<ConnectTokenGrant | undefined>;
}

/** Checks an origin (`https://app.example.com`); throws naming `field`. @internal */
export function checkOrigin(value: unknown, field: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== value) {
    throw new HooklineError("bad_request", `${field} must be origins such as https://app.example.com`, {
      field,
    });
  }
  return url.origin;
}

/** The `connectTokens` API of an engine. @internal */
export function createConnectTokens(ctx: Pick<EngineContext, "store" | "baseUrl">): ConnectTokensApi {
  return {
    async create(workspaceId, input) {
      const externalUserId = checkExternalUserId(input.externalUserId);
      const ttl = input.ttlSeconds ?? DEFAULT_TTL_S;
      if (!Number.isSafeInteger(ttl) || ttl < 60 || ttl > MAX_TTL_S) {
        throw new HooklineError("bad_request", `ttl must be 60 to ${MAX_TTL_S} seconds`, { field: "ttl" });
      }
      const allowedOrigins = (input.allowedOrigins ?? []).map((o) => checkOrigin(o, "allowed_origins"));
      const token = newSecret(CONNECT_TOKEN_PREFIX);
      const expiresAt = Date.now() + ttl * 1000;
      await ctx.store.authTickets.create({
        kind: TICKET.connectToken,
        key: ticketKey(token),
        workspaceId,
        data: JSON.stringify({ externalUserId, allowedOrigins }),
        expiresAt,
      });
      return { token, expiresAt, connectUrl: `${ctx.baseUrl}/oauth/connect` };
    },
    async resolve(token) {
      if (typeof token !== "string" || !token.startsWith(CONNECT_TOKEN_PREFIX)) return undefined;
      const ticket = await ctx.store.authTickets.get(TICKET.connectToken, ticketKey(token));
      if (!ticket) return undefined;
      const data = JSON.parse(ticket.data) as { externalUserId: string; allowedOrigins: string[] };
      return { workspaceId: ticket.workspaceId, ...data, expiresAt: ticket.expiresAt };
    },
  };
}
