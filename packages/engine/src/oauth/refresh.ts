/**
 * Fresh OAuth credentials: an account's `$auth`, refreshed first when its access token expires
 * within `refreshSkewMs` (or already has). One refresh at a time per account: on this node the
 * callers share one promise, across nodes the store's refresh lease lets one node refresh while the
 * others wait for its result (`accounts.claimRefresh`). A refusal of the grant (`invalid_grant`:
 * revoked, expired) marks the account `needs_reconnect`, tells observers (`account` event) and the
 * workspace's emitter (`account.needs_reconnect`); other failures keep the current token.
 */
import type { Account } from "@hookline/store";
import type { EngineContext } from "../context.js";
import type { ResolvedClient } from "./clients.js";
import { credentialsOf } from "./credentials.js";
import { emitWorkspaceEvent } from "./operator-events.js";
import { refreshTokens, refusalOf } from "./protocol.js";

/** Where a refresh says what happened, for the run that needed it. */
export type AuthLog = (level: "info" | "warn" | "error", message: string) => void;

/** Fresh credentials of accounts. @internal */
export interface Refresher {
  /** The account's `$auth`, refreshed first when due; notes go to `log`. */
  credentials(account: Account, log?: AuthLog): Promise<Record<string, unknown>>;
  /** Whether the account's token is due for a refresh now (by the engine's clock). */
  due(account: Pick<Account, "oauth" | "expiresAt" | "status">): boolean;
  /**
   * Refreshes, one after the other, the tokens of every workspace that are due now (at most 100):
   * ahead of their use, so that a run does not wait for a refresh. Resolves with how many were refreshed.
   */
  refreshDue(): Promise<number>;
}

/** How long a node may hold a refresh lease. */
const LEASE_MS = 30_000;
/** How often a node waiting for another's refresh looks again, and for how many times at most. */
const WAIT_MS = 100;
const MAX_WAITS = LEASE_MS / WAIT_MS;
/** The provider errors that mean the grant is gone: the user must connect again. */
const GRANT_GONE = new Set(["invalid_grant"]);

type Note = { level: "info" | "warn" | "error"; message: string };
type Outcome = { account: Account; note?: Note; refreshed?: true };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates the refresher of an engine. @internal */
export function createRefresher(
  ctx: Pick<EngineContext, "store" | "box" | "transport" | "clock" | "nodeId" | "notify" | "wakeWorker">,
  resolveClient: (workspaceId: string, app: string) => Promise<ResolvedClient | undefined>,
  skewMs: number,
): Refresher {
  const { store } = ctx;
  const inFlight = new Map<string, Promise<Outcome>>();
  const open = (account: Account) => JSON.parse(ctx.box.open(account.credentials)) as Record<string, unknown>;
  const label = (a: Account) =>
    `account ${a.id} (${a.app}${a.externalUserId ? `, end user ${a.externalUserId}` : ""})`;
  const due = (a: Pick<Account, "oauth" | "expiresAt" | "status">) =>
    a.oauth && a.status === "active" && a.expiresAt !== undefined && a.expiresAt - skewMs <= ctx.clock.now();
  const needsReconnectNote = (a: Account): Note => ({
    level: "error",
    message: `${label(a)} needs reconnect: its OAuth grant was refused on refresh; its last token is used. Connect it again (POST /v1/accounts/connect with account_id ${a.id}, or the Accounts page)`,
  });

  async function markNeedsReconnect(account: Account, reason: string): Promise<Outcome> {
    const marked =
      (await store.accounts.endRefresh(account.workspaceId, account.id, ctx.nodeId, {
        status: "needs_reconnect",
      })) ?? account;
    const body = {
      account_id: account.id,
      app: account.app,
      name: account.name,
      external_user_id: account.externalUserId ?? null,
      reason,
    };
    ctx.notify("account", {
      workspaceId: account.workspaceId,
      accountId: account.id,
      app: account.app,
      change: "needs_reconnect",
      reason,
      ...(account.externalUserId !== undefined ? { externalUserId: account.externalUserId } : {}),
    });
    await emitWorkspaceEvent(
      ctx,
      account.workspaceId,
      "account.needs_reconnect",
      `${account.name} needs reconnect`,
      body,
    );
    const note = needsReconnectNote(marked);
    return { account: marked, note: { ...note, message: `${note.message} (provider error: ${reason})` } };
  }

  /** Takes the lease, or waits for the node holding it; the account as the lease holder sees it. */
  async function claim(account: Account): Promise<{ claimed?: Account; current: Account }> {
    for (let i = 0; ; i++) {
      const claimed = await store.accounts.claimRefresh(
        account.workspaceId,
        account.id,
        ctx.nodeId,
        LEASE_MS,
      );
      if (claimed) return { claimed, current: claimed };
      if (i >= MAX_WAITS) return { current: account };
      await sleep(WAIT_MS);
      const now = await store.accounts.get(account.workspaceId, account.id);
      if (!now) return { current: account };
      if (!due(now)) return { current: now }; // refreshed (or marked) by the node that held it
    }
  }

  async function refresh(account: Account): Promise<Outcome> {
    const { claimed, current } = await claim(account);
    if (!claimed) {
      return due(current)
        ? {
            account: current,
            note: {
              level: "warn",
              message: `${label(current)}: another node's refresh did not end; the current token is used`,
            },
          }
        : { account: current };
    }
    const release = async (note?: Note): Promise<Outcome> => {
      await store.accounts.endRefresh(claimed.workspaceId, claimed.id, ctx.nodeId, {});
      return note ? { account: claimed, note } : { account: claimed };
    };
    if (!due(claimed)) return release(); // another node refreshed it between our reads
    const previous = open(claimed);
    const client = await resolveClient(claimed.workspaceId, claimed.app);
    if (!client) {
      return release({
        level: "warn",
        message: `${label(claimed)}: no OAuth client for ${claimed.app} to refresh it with; the current token is used`,
      });
    }
    const refreshToken = previous.oauth_refresh_token;
    if (typeof refreshToken !== "string") return markNeedsReconnect(claimed, "no_refresh_token");
    const params: Record<string, string> = {};
    for (const name of Object.keys(client.settings.params ?? {}))
      if (typeof previous[name] === "string") params[name] = previous[name] as string;
    let tokens: Awaited<ReturnType<typeof refreshTokens>>;
    try {
      tokens = await refreshTokens(ctx.transport, client, refreshToken, params);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal && GRANT_GONE.has(refusal.providerError))
        return markNeedsReconnect(claimed, refusal.providerError);
      const why = refusal ? refusal.providerError : error instanceof Error ? error.message : String(error);
      ctx.notify("account", {
        workspaceId: claimed.workspaceId,
        accountId: claimed.id,
        app: claimed.app,
        change: "refresh_failed",
        reason: why.slice(0, 200),
        ...(claimed.externalUserId !== undefined ? { externalUserId: claimed.externalUserId } : {}),
      });
      return release({
        level: "warn",
        message: `${label(claimed)}: the refresh failed (${why}); the current token is used`,
      });
    }
    const fresh = credentialsOf(client, tokens, { previous, params, now: ctx.clock.now() });
    const updated = await store.accounts.endRefresh(claimed.workspaceId, claimed.id, ctx.nodeId, {
      credentials: ctx.box.seal(JSON.stringify(fresh.credentials)),
      expiresAt: fresh.expiresAt ?? null,
      status: "active",
    });
    if (!updated) {
      // The lease ran out meanwhile and another node took it: its result is the one kept.
      return { account: (await store.accounts.get(claimed.workspaceId, claimed.id)) ?? claimed };
    }
    ctx.notify("account", {
      workspaceId: updated.workspaceId,
      accountId: updated.id,
      app: updated.app,
      change: "refreshed",
      ...(updated.externalUserId !== undefined ? { externalUserId: updated.externalUserId } : {}),
    });
    return {
      account: updated,
      note: { level: "info", message: `${label(updated)}: OAuth token refreshed` },
      refreshed: true,
    };
  }

  /** The refresh of a due account (shared by concurrent callers on this node); undefined when not due. */
  function refreshed(account: Account): Promise<Outcome> | undefined {
    if (!due(account)) return undefined;
    let pending = inFlight.get(account.id);
    if (!pending) {
      pending = refresh(account).finally(() => inFlight.delete(account.id));
      inFlight.set(account.id, pending);
    }
    return pending;
  }

  return {
    due,
    async refreshDue() {
      let count = 0;
      for (const account of await store.accounts.listExpiring(ctx.clock.now() + skewMs, 100)) {
        if ((await refreshed(account))?.refreshed) count++;
      }
      return count;
    },
    async credentials(account, log) {
      if (!account.oauth) return open(account);
      if (account.status === "needs_reconnect") {
        const note = needsReconnectNote(account);
        log?.(note.level, note.message);
        return open(account);
      }
      const outcome = await refreshed(account);
      if (outcome?.note) log?.(outcome.note.level, outcome.note.message);
      return open(outcome?.account ?? account);
    },
  };
}
