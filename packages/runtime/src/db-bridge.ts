/**
 * `$.service.db` around an invocation, for both sandbox modes (in process: runtime.ts; in a pool
 * thread: pool/remote-mount.ts): the snapshot it starts from, and its writes stored in one call.
 */
import type { ComponentDescription } from "@hookline/core";
import type { HostBridges } from "./types.js";

/** Whether a component declares a `$.service.db` prop (only then is its db read before a call). */
export function declaresDb(description: ComponentDescription): boolean {
  return Object.values(description.props).some((p) => p.type === "$.service.db");
}

/** The db entries an invocation starts from; undefined without a db prop or a db bridge. */
export async function dbBefore(
  bridges: HostBridges,
  hasDb: boolean,
): Promise<Record<string, unknown> | undefined> {
  return hasDb && bridges.db ? bridges.db.entries() : undefined;
}

/** Stores an invocation's db writes (`[key, value]`, `undefined` deleting), in order, in one call. */
export async function dbAfter(bridges: HostBridges, writes: [string, unknown][]): Promise<void> {
  if (bridges.db && writes.length > 0) await bridges.db.write(writes);
}
