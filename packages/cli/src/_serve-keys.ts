/**
 * The keys `pd serve` makes sure of at start: a key that works, and an operator key (which may also
 * manage workspaces and keys: `pd workspaces`, `pd keys`), each printed once when it is made.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hookline } from "@hookline/engine";
import type { Store } from "@hookline/store";

/** The store setting that holds the id of the operator key `pd serve` made (made once per store). */
export const OPERATOR_KEY_SETTING = "serve.operator_key";

/** Writes a secret file with mode 600. @internal */
export function _writeSecret(path: string, value: string): void {
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** What {@link _ensureApiKey} did: a key it made (shown once), where the key is, an operator key made. */
export interface EnsuredKeys {
  created?: string;
  where: string;
  /** An operator key made for a store that had keys but none made by `pd serve` (an upgrade). */
  operator?: { key: string; where: string };
}

/**
 * Makes sure an API key works: HOOKLINE_API_KEY is seeded into the "default" workspace (as an
 * operator key) when it does not resolve; otherwise the first start creates a workspace and an
 * operator key, shown once. A store whose keys were all made before operator keys existed gets an
 * operator key too, shown once (the first node to start makes it: a store setting says it exists).
 * @internal
 */
export async function _ensureApiKey(
  hookline: Hookline,
  store: Store,
  dataDir: string | undefined,
  keyFile: string | undefined,
): Promise<EnsuredKeys> {
  const ensured = await firstKey(hookline, store, keyFile);
  if (await store.settings.get(OPERATOR_KEY_SETTING)) return ensured;
  const workspaces = (await hookline.workspaces.list()).filter((w) => w.revokedAt === undefined);
  const home =
    workspaces.find((w) => w.name === "default") ??
    workspaces.find((w) => w.id !== "ws_registry") ??
    (await hookline.workspaces.create({ name: "default" }));
  const made = await hookline.apiKeys.create(home.id, { name: "operator", role: "operator" });
  if ((await store.settings.setIfAbsent(OPERATOR_KEY_SETTING, made.apiKey.id)) !== made.apiKey.id) {
    // Another node made one meanwhile.
    await hookline.apiKeys.revoke(home.id, made.apiKey.id);
    return ensured;
  }
  const file = dataDir ? join(dataDir, "operator-key") : undefined;
  if (file) _writeSecret(file, made.key);
  return {
    ...ensured,
    operator: { key: made.key, where: file ? `saved in ${file}` : "not saved (memory store)" },
  };
}

async function firstKey(hookline: Hookline, store: Store, keyFile: string | undefined): Promise<EnsuredKeys> {
  const seeded = process.env.HOOKLINE_API_KEY;
  if (seeded) {
    const { hashApiKey } = await import("@hookline/engine");
    if (!(await hookline.apiKeys.resolve(seeded))) {
      const workspaces = await hookline.workspaces.list();
      const ws =
        workspaces.find((w) => w.name === "default" && w.revokedAt === undefined) ??
        (await hookline.workspaces.create({ name: "default" }));
      const key = await store.apiKeys.create({
        workspaceId: ws.id,
        name: "seed",
        hash: hashApiKey(seeded),
        hint: `${seeded.slice(0, 7)}…`,
        role: "operator",
      });
      await store.settings.setIfAbsent(OPERATOR_KEY_SETTING, key.id);
    }
    return { where: "HOOKLINE_API_KEY" };
  }
  const workspaces = await hookline.workspaces.list();
  if (workspaces.length > 0) {
    return { where: keyFile && existsSync(keyFile) ? keyFile : "created on first start (not stored here)" };
  }
  const ws = await hookline.workspaces.create({ name: "default" });
  const { key, apiKey } = await hookline.apiKeys.create(ws.id, { name: "pd serve", role: "operator" });
  await store.settings.setIfAbsent(OPERATOR_KEY_SETTING, apiKey.id);
  if (keyFile) _writeSecret(keyFile, key);
  return { created: key, where: keyFile ? `saved in ${keyFile}` : "not saved (memory store)" };
}
