/**
 * What `pd serve` publishes into the public registry at start-up: Hookline's essentials (always,
 * unless `--no-essentials`) and the npm packages named with `--import` (or HOOKLINE_IMPORT). They
 * are published by a workspace of their own, `ws_registry`, so no user's workspace owns them.
 * Files whose code was published before are skipped without loading them, so a restart is quick.
 */
import { createHash } from "node:crypto";
import type { Hookline } from "@hookline/engine";
import type { PackagesOptions } from "@hookline/runtime";
import { note, style } from "./_output.js";
import {
  essentialsDir,
  folderComponentFiles,
  type ImportResult,
  npmPackages,
  publishFiles,
  resolvePackageDir,
} from "./_registry-import.js";

/** The workspace that publishes what the server imports itself. @internal */
export const REGISTRY_WORKSPACE = { id: "ws_registry", name: "Hookline registry" };

function summary(results: ImportResult[]): string {
  const n = (status: ImportResult["status"]) => results.filter((r) => r.status === status).length;
  const parts = [`${n("published")} published`];
  if (n("exists") > 0) parts.push(`${n("exists")} already there`);
  if (n("failed") > 0) parts.push(`${n("failed")} failed`);
  return parts.join(", ");
}

/**
 * Publishes the essentials and `imports` into the public registry; resolves with one banner line
 * per source. Failures are reported on stderr and never stop the server.
 * @internal
 */
export async function _publishAtStart(
  hookline: Hookline,
  options: { essentials: boolean; imports: string[]; packages: PackagesOptions },
): Promise<string[]> {
  let ws = await hookline.workspaces.get(REGISTRY_WORKSPACE.id);
  if (!ws) {
    try {
      ws = await hookline.workspaces.create(REGISTRY_WORKSPACE);
    } catch (error) {
      // Another node sharing the store made it first.
      ws = await hookline.workspaces.get(REGISTRY_WORKSPACE.id);
      if (!ws) throw error;
    }
  }
  const workspaceId = ws.id;
  const known = new Set((await hookline.components.list(workspaceId)).map((c) => c.codeHash));
  const publish = async (component: { code: string; filename: string }) => {
    const hash = createHash("sha256").update(component.code).digest("hex");
    if (known.has(hash))
      throw Object.assign(new Error("published before"), { code: "component_version_exists" });
    const published = await hookline.registry.publish(workspaceId, { code: component, visibility: "public" });
    known.add(hash);
    return published;
  };
  const report = (what: string) => (r: ImportResult) => {
    if (r.status === "failed")
      note(style.dim(`  registry: ${what}: ${r.file}: ${r.error?.code}: ${r.error?.message}`));
  };

  const lines: string[] = [];
  if (options.essentials) {
    const dir = essentialsDir();
    const results = await publishFiles(dir, folderComponentFiles(dir), publish, report("essentials"));
    lines.push(`essentials: ${summary(results)}`);
  }
  for (const spec of options.imports) {
    try {
      const found = await resolvePackageDir(spec, options.packages);
      const { declaredRanges, packageComponentFiles } = await npmPackages();
      const label = `${found.name}@${found.version}`;
      const files = packageComponentFiles(found.dir);
      const results = await publishFiles(found.dir, files, publish, report(label), declaredRanges(found.dir));
      lines.push(`${label}: ${summary(results)}`);
    } catch (error) {
      lines.push(`${spec}: not imported (${(error as Error).message})`);
    }
  }
  return lines;
}
