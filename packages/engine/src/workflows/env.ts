/**
 * The workspace's environment variables (`hookline.env`, `/v1/env`): values sealed with the engine's
 * secret box at rest, never returned; workflow expressions read the ones they name.
 */
import { HooklineError } from "@hookline/core";
import type { EngineContext } from "../context.js";
import { wfStores } from "./stores.js";
import type { EnvApi, EnvVarView } from "./types.js";

/** Names of environment variables. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Largest value, in bytes. */
export const MAX_ENV_VALUE_BYTES = 64 * 1024;

const view = (v: { name: string; createdAt: number; updatedAt: number }): EnvVarView => ({
  name: v.name,
  createdAt: v.createdAt,
  updatedAt: v.updatedAt,
});

function invalid(path: string, message: string): HooklineError {
  return new HooklineError("validation_failed", `${path}: ${message}`, {
    problems: [{ code: "invalid_value", path, message }],
  });
}

/** The `env` API of an engine. @internal */
export function createEnvApi(ctx: EngineContext): EnvApi {
  return {
    async set(workspaceId, name, value) {
      if (typeof name !== "string" || !ENV_NAME.test(name) || name.length > 200) {
        throw invalid("name", "a variable name matches ^[A-Za-z_][A-Za-z0-9_]*$ (at most 200 characters)");
      }
      if (typeof value !== "string") throw invalid("value", "value must be a string");
      if (Buffer.byteLength(value) > MAX_ENV_VALUE_BYTES) {
        throw new HooklineError("payload_too_large", "value is larger than 64KB", {
          field: "value",
          limit: MAX_ENV_VALUE_BYTES,
        });
      }
      return view(await wfStores(ctx.store).env.set(workspaceId, name, ctx.box.seal(value)));
    },
    async list(workspaceId) {
      return (await wfStores(ctx.store).env.list(workspaceId)).map(view);
    },
    async delete(workspaceId, name) {
      if (!(await wfStores(ctx.store).env.delete(workspaceId, name))) {
        throw new HooklineError("not_found", `No environment variable ${name} in this workspace`);
      }
    },
  };
}

/** The values of the named variables (absent ones left out), opened. @internal */
export async function readEnv(
  ctx: Pick<EngineContext, "store" | "box">,
  workspaceId: string,
  names: readonly string[],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (names.length === 0) return out;
  const env = wfStores(ctx.store).env;
  for (const name of names) {
    const row = await env.get(workspaceId, name);
    if (row) out[name] = ctx.box.open(row.value);
  }
  return out;
}
