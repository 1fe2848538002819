/**
 * The connect flow: `start` makes the authorization URL (a single-use `state` bound to the
 * workspace, stored by hash with the PKCE verifier sealed, for 10 minutes); `finish` is the
 * callback: it takes the state (once), exchanges the code, calls the user-info URL, and stores the
 * account (a new one, or the one being reconnected: same `apn_` id). Nothing is stored when any
 * step fails. How the flow ended is kept by state for `status` (the CLI and pages waiting on it).
 */
import { HooklineError } from "@hookline/core";
import type { Account } from "@hookline/store";
import { type AccountScope, checkExternalUserId, scopedAccount } from "../accounts.js";
import type { EngineContext } from "../context.js";
import { type AccountView, accountView } from "../views.js";
import { type ResolvedClient, redirectUriOf } from "./clients.js";
import { credentialsOf, defaultName } from "./credentials.js";
import { emitWorkspaceEvent } from "./operator-events.js";
import { authorizationUrl, exchangeCode, fetchUserInfo, newState, pkcePair } from "./protocol.js";
import { STATE_TTL_MS, TICKET, ticketKey } from "./tickets.js";

/** What starts a connect flow. */
export interface ConnectInput {
  /** The app slug; its OAuth client must exist. */
  app: string;
  /** The new account's name (default: from the user info, else the provider's name). */
  name?: string;
  /** The end user who will own the account (a connect token's scope sets it). */
  externalUserId?: string;
  /** Reconnect this account (same `apn_` id) instead of making a new one. */
  accountId?: string;
  /** Where the callback redirects when done (else it answers a page that closes the popup). */
  returnUrl?: string;
  /** The origin of the window that opened the popup, which the callback page posts its result to. */
  openerOrigin?: string;
  /** Connect parameters the app needs (Shopify's `shop`). */
  params?: Record<string, string>;
}

/** A connect token's scope: its end user, and the origins its pages may return to. */
export interface ConnectScope extends AccountScope {
  allowedOrigins?: string[];
}

/** A flow under way. */
export interface ConnectStarted {
  /** Open this in the user's browser (a popup). */
  authorizeUrl: string;
  /** The flow's state: `status(state)` tells how it ended. */
  state: string;
  /** When the flow expires, epoch ms. */
  expiresAt: number;
}

/** How the callback ended, with where to tell it. */
export type ConnectFinished = { returnUrl?: string; openerOrigin?: string } & (
  | { ok: true; account: AccountView; reconnected: boolean }
  | { ok: false; error: HooklineError }
);

/** A flow's status. */
export interface ConnectStatus {
  status: "pending" | "connected" | "failed";
  account?: AccountView;
  error?: { code: string; message: string };
}

/** The connect flow: `hookline.oauth.connect`. */
export interface ConnectApi {
  /**
   * Starts a connect flow.
   *
   * @example
   * ```ts
   * const { authorizeUrl, state } = await hookline.connect.start(ws.id, { app: "github" });
   * ```
   */
  start(workspaceId: string, input: ConnectInput, scope?: ConnectScope): Promise<ConnectStarted>;
  /** The OAuth callback (`/oauth/callback?code&state`): never throws, says how it ended. */
  finish(query: URLSearchParams): Promise<ConnectFinished>;
  /** How a flow of this workspace (and scope) ended, or `pending`; 404 when unknown or expired. */
  status(workspaceId: string, state: string, scope?: AccountScope): Promise<ConnectStatus>;
}

interface StateData {
  app: string;
  name?: string;
  externalUserId?: string;
  accountId?: string;
  verifier?: string;
  returnUrl?: string;
  openerOrigin: string;
  params: Record<string, string>;
  redirectUri: string;
}

type ResultData =
  | { status: "connected"; accountId: string; externalUserId?: string }
  | { status: "failed"; error: { code: string; message: string }; externalUserId?: string };

type ConnectContext = Pick<
  EngineContext,
  "store" | "box" | "transport" | "clock" | "baseUrl" | "notify" | "wakeWorker"
>;

/** A return or opener URL checked against the allowed origins (`invalid_url`). */
function checkUrl(value: string, field: string, allowed: Set<string>): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || !allowed.has(url.origin)) {
    throw new HooklineError(
      "invalid_url",
      `${field} must be an http(s) URL of this server or of an allowed origin (${[...allowed].join(", ")})`,
      { field },
    );
  }
  return field === "opener_origin" ? url.origin : url.href;
}

/** The provider parameters a client declares, each given and matching its pattern (`bad_request`). */
function checkParams(client: ResolvedClient, given: Record<string, string> = {}): Record<string, string> {
  const declared = client.settings.params ?? {};
  const out: Record<string, string> = {};
  for (const name of Object.keys(given))
    if (!declared[name])
      throw new HooklineError("bad_request", `params.${name} is not a parameter of ${client.app}`, {
        field: `params.${name}`,
      });
  for (const [name, rule] of Object.entries(declared)) {
    const value = given[name];
    if (typeof value !== "string" || !new RegExp(rule.pattern).test(value)) {
      throw new HooklineError("bad_request", `params.${name} is required: ${rule.description}`, {
        field: `params.${name}`,
      });
    }
    out[name] = value;
  }
  return out;
}

/** Keeps a flow's outcome for `status` (the first one kept stays). */
async function saveResult(
  { store }: ConnectContext,
  state: string,
  workspaceId: string,
  data: ResultData,
): Promise<void> {
  await store.authTickets
    .create({
      kind: TICKET.result,
      key: ticketKey(state),
      workspaceId,
      data: JSON.stringify(data),
      expiresAt: Date.now() + STATE_TTL_MS,
    })
    .catch(() => undefined); // a result already kept for this state: the first stays
}

/** Stores the connected account: the one being reconnected (same id), else a new one. */
async function saveAccount(
  { store, box }: ConnectContext,
  workspaceId: string,
  data: StateData,
  credentials: Record<string, unknown>,
  expiresAt: number | undefined,
  client: ResolvedClient,
) {
  const sealed = box.seal(JSON.stringify(credentials));
  const existing = data.accountId ? await store.accounts.get(workspaceId, data.accountId) : undefined;
  if (existing) {
    const updated = (await store.accounts.update(workspaceId, existing.id, {
      credentials: sealed,
      status: "active",
      expiresAt: expiresAt ?? null,
      ...(data.name !== undefined ? { name: data.name } : {}),
    })) as Account;
    return { account: updated, reconnected: true };
  }
  const account = await store.accounts.create({
    workspaceId,
    app: data.app,
    name: data.name ?? defaultName(client, credentials),
    credentials: sealed,
    oauth: true,
    ...(data.externalUserId !== undefined ? { externalUserId: data.externalUserId } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  });
  return { account, reconnected: false };
}

/**
 * Takes a flow's state, once: it is marked busy first (a ticket that outlives it, so that `status`
 * always finds the flow: state, then busy, then result), then taken; of two callbacks with one
 * state, one gets it. Undefined when unknown, expired, altered or already taken.
 */
async function claimState(
  { store, box }: ConnectContext,
  state: string,
): Promise<{ workspaceId: string; data: StateData } | undefined> {
  const key = ticketKey(state);
  const found = await store.authTickets.get(TICKET.state, key);
  if (!found) return undefined;
  let data: StateData;
  try {
    data = JSON.parse(box.open(found.data)) as StateData;
  } catch {
    return undefined; // not sealed by this server's key
  }
  const owner = data.externalUserId !== undefined ? { externalUserId: data.externalUserId } : {};
  const busy = await store.authTickets
    .create({
      kind: TICKET.busy,
      key,
      workspaceId: found.workspaceId,
      data: JSON.stringify(owner),
      expiresAt: found.expiresAt,
    })
    .then(
      () => true,
      () => false,
    );
  const taken = busy ? await store.authTickets.take(TICKET.state, key) : undefined;
  return taken ? { workspaceId: taken.workspaceId, data } : undefined;
}

/**
 * The account a finished flow connects: the code exchanged for tokens (and the user info read when
 * the client says where), shaped into credentials and stored (see {@link saveAccount}).
 */
async function connectAccount(
  ctx: ConnectContext,
  client: ResolvedClient,
  workspaceId: string,
  data: StateData,
  callback: { code: string; state: string; iss: string | null },
): Promise<{ account: Account; reconnected: boolean }> {
  const tokens = await exchangeCode(ctx.transport, client, {
    code: callback.code,
    state: callback.state,
    ...(callback.iss !== null ? { iss: callback.iss } : {}),
    redirectUri: data.redirectUri,
    ...(data.verifier ? { verifier: data.verifier } : {}),
    params: data.params,
  });
  const userInfo = client.settings.user_info
    ? await fetchUserInfo(ctx.transport, client.settings.user_info.url, tokens.access_token)
    : undefined;
  const shaped = credentialsOf(client, tokens, {
    ...(userInfo ? { userInfo } : {}),
    params: data.params,
    now: ctx.clock.now(),
  });
  const credentials = { ...data.params, ...shaped.credentials };
  return saveAccount(ctx, workspaceId, data, credentials, shaped.expiresAt, client);
}

/** Creates the connect flow of an engine. @internal */
export function createConnect(
  ctx: ConnectContext,
  resolveClient: (workspaceId: string, app: string) => Promise<ResolvedClient | undefined>,
  allowedOrigins: readonly string[],
): ConnectApi {
  const { store, box } = ctx;
  const baseOrigin = new URL(ctx.baseUrl).origin;

  return {
    async start(workspaceId, input, scope) {
      if (typeof input.app !== "string" || !/^[a-z0-9_]+$/.test(input.app)) {
        throw new HooklineError("bad_request", "app must be an app name slug such as github", {
          field: "app",
        });
      }
      const client = await resolveClient(workspaceId, input.app);
      if (!client) {
        throw new HooklineError(
          "oauth_not_configured",
          `No OAuth client for ${input.app} in this workspace: add one with PUT /v1/oauth_clients/${input.app} (docs/accounts.md)`,
          { app: input.app },
        );
      }
      let externalUserId =
        scope?.externalUserId ??
        (input.externalUserId !== undefined ? checkExternalUserId(input.externalUserId) : undefined);
      if (input.accountId !== undefined) {
        const account = await scopedAccount(ctx, workspaceId, input.accountId, scope);
        if (account.app !== input.app) {
          throw new HooklineError(
            "bad_request",
            `account_id ${account.id} is a ${account.app} account, not ${input.app}`,
            { field: "account_id" },
          );
        }
        externalUserId = account.externalUserId;
      }
      if (input.name !== undefined && (typeof input.name !== "string" || input.name.length > 200)) {
        throw new HooklineError("bad_request", "name must be a string of at most 200 characters", {
          field: "name",
        });
      }
      const allowed = new Set([baseOrigin, ...allowedOrigins, ...(scope?.allowedOrigins ?? [])]);
      const returnUrl =
        input.returnUrl !== undefined ? checkUrl(input.returnUrl, "return_url", allowed) : undefined;
      const openerOrigin =
        input.openerOrigin !== undefined
          ? checkUrl(input.openerOrigin, "opener_origin", allowed)
          : baseOrigin;
      const params = checkParams(client, input.params);
      const state = newState();
      const pkce = client.settings.pkce ? await pkcePair() : undefined;
      const redirectUri = redirectUriOf(ctx.baseUrl);
      const data: StateData = {
        app: input.app,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(externalUserId !== undefined ? { externalUserId } : {}),
        ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
        ...(pkce ? { verifier: pkce.verifier } : {}),
        ...(returnUrl !== undefined ? { returnUrl } : {}),
        openerOrigin,
        params,
        redirectUri,
      };
      const expiresAt = Date.now() + STATE_TTL_MS;
      await store.authTickets.create({
        kind: TICKET.state,
        key: ticketKey(state),
        workspaceId,
        data: box.seal(JSON.stringify(data)),
        expiresAt,
      });
      const authorizeUrl = authorizationUrl(client, {
        redirectUri,
        state,
        ...(pkce ? { challenge: pkce.challenge } : {}),
        params,
      });
      return { authorizeUrl, state, expiresAt };
    },

    async finish(query) {
      const state = query.get("state");
      if (!state)
        return {
          ok: false,
          error: new HooklineError("bad_request", "The callback needs state", { field: "state" }),
        };
      const ticket = await claimState(ctx, state);
      const data = ticket?.data;
      if (!ticket || !data) {
        return {
          ok: false,
          error: new HooklineError(
            "oauth_state_invalid",
            "This sign-in link is unknown, expired or already used (state); nothing was stored. Start connecting again",
          ),
        };
      }
      const where = {
        ...(data.returnUrl ? { returnUrl: data.returnUrl } : {}),
        openerOrigin: data.openerOrigin,
      };
      const owner = data.externalUserId !== undefined ? { externalUserId: data.externalUserId } : {};
      const fail = async (error: HooklineError): Promise<ConnectFinished> => {
        await saveResult(ctx, state, ticket.workspaceId, {
          status: "failed",
          error: { code: error.code, message: error.message },
          ...owner,
        });
        return { ok: false, error, ...where };
      };
      const denied = query.get("error");
      if (denied) {
        const description = query.get("error_description");
        return fail(
          new HooklineError(
            "oauth_denied",
            `The provider sent back ${denied}${description ? `: ${description}` : ""}; nothing was stored`,
            {
              provider_error: denied,
            },
          ),
        );
      }
      const code = query.get("code");
      if (!code) return fail(new HooklineError("bad_request", "The callback needs code", { field: "code" }));
      try {
        const client = await resolveClient(ticket.workspaceId, data.app);
        if (!client)
          throw new HooklineError(
            "oauth_not_configured",
            `The OAuth client for ${data.app} was deleted meanwhile`,
          );
        const { account, reconnected } = await connectAccount(ctx, client, ticket.workspaceId, data, {
          code,
          state,
          iss: query.get("iss"),
        });
        await saveResult(ctx, state, ticket.workspaceId, {
          status: "connected",
          accountId: account.id,
          ...owner,
        });
        ctx.notify("account", {
          workspaceId: account.workspaceId,
          accountId: account.id,
          app: account.app,
          change: reconnected ? "reconnected" : "connected",
          ...owner,
        });
        await emitWorkspaceEvent(ctx, account.workspaceId, "account.connected", `${account.name} connected`, {
          account_id: account.id,
          app: account.app,
          name: account.name,
          external_user_id: account.externalUserId ?? null,
          reconnected,
        });
        return { ok: true, account: accountView(account), reconnected, ...where };
      } catch (error) {
        if (!(error instanceof HooklineError)) throw error;
        return fail(error);
      }
    },

    async status(workspaceId, state, scope) {
      // Read in the order the callback writes (state, busy, result), backwards: a flow under way is
      // always found in one of them.
      const key = ticketKey(state);
      const notFound = () =>
        new HooklineError("not_found", "No connect flow with this state (unknown or expired)");
      const mine = (ticket: { workspaceId: string }, owner: string | undefined) =>
        ticket.workspaceId === workspaceId && (!scope || owner === scope.externalUserId);
      const pending = await store.authTickets.get(TICKET.state, key);
      if (pending) {
        const data = JSON.parse(box.open(pending.data)) as StateData;
        if (!mine(pending, data.externalUserId)) throw notFound();
        return { status: "pending" };
      }
      const result = await store.authTickets.get(TICKET.result, key);
      if (result) {
        const data = JSON.parse(result.data) as ResultData;
        if (!mine(result, data.externalUserId)) throw notFound();
        if (data.status === "failed") return { status: "failed", error: data.error };
        const account = await store.accounts.get(workspaceId, data.accountId);
        return account ? { status: "connected", account: accountView(account) } : { status: "connected" };
      }
      const busy = await store.authTickets.get(TICKET.busy, key);
      if (busy && mine(busy, (JSON.parse(busy.data) as { externalUserId?: string }).externalUserId)) {
        return { status: "pending" };
      }
      throw notFound();
    },
  };
}
