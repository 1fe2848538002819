/**
 * The `$auth` a cached sandbox was built with, and when it goes stale: a source's sandbox is kept
 * between runs with its props bound (mounts.ts), so a sandbox whose OAuth token is due for a refresh,
 * or whose account changed (reconnected, updated, refreshed by another node), is rebuilt before its
 * next run. Changes made on this node drop the sandbox at once (`mounts.forgetAccount`); those of
 * other nodes are seen within {@link AUTH_RECHECK_MS}.
 */
import type { Account } from "@hookline/store";
import type { AppsContext } from "./apps.js";

/** A line the engine adds to a run's logs about its accounts. */
export interface AuthNote {
  level: "info" | "warn" | "error";
  message: string;
}

/** The accounts a sandbox's `$auth` came from, as they were then. @internal */
export interface AuthStamp {
  accounts: Pick<Account, "id" | "workspaceId" | "updatedAt" | "oauth" | "status" | "expiresAt">[];
  /** What opening them said (refreshed, needs reconnect). */
  notes: AuthNote[];
  /** No run has logged the notes yet (`info` and `warn` notes are logged once, `error` ones every run). */
  fresh: boolean;
  /** When the accounts were last compared with the store (performance.now()). */
  checkedAt: number;
}

/** How often a cached sandbox's accounts are compared with the store, ms. */
export const AUTH_RECHECK_MS = 10_000;

/** The stamp of a new sandbox. @internal */
export function authStampOf(used: Account[], notes: AuthNote[]): AuthStamp {
  return {
    accounts: used.map(({ id, workspaceId, updatedAt, oauth, status, expiresAt }) => ({
      id,
      workspaceId,
      updatedAt,
      oauth,
      status,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    })),
    notes,
    fresh: true,
    checkedAt: performance.now(),
  };
}

/** Whether the sandbox must be rebuilt for its `$auth`. @internal */
export async function authStale(
  apps: Pick<AppsContext, "store" | "authDue">,
  stamp: AuthStamp,
): Promise<boolean> {
  if (stamp.accounts.length === 0) return false;
  if (stamp.accounts.some((a) => apps.authDue(a))) return true;
  if (performance.now() - stamp.checkedAt < AUTH_RECHECK_MS) return false;
  for (const a of stamp.accounts) {
    const now = await apps.store.accounts.get(a.workspaceId, a.id);
    if (!now || now.updatedAt !== a.updatedAt) return true;
  }
  stamp.checkedAt = performance.now();
  return false;
}
