/**
 * `pd registry import <npm package|folder>`: publish the components of an npm package (such as
 * `@pipedream/slack`) or of a folder to the registry, each under its own key and version.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { _flag, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, style } from "../_output.js";
import { _npmOptions, _packagesOptions, _userCacheDir } from "../_packages.js";
import {
  folderComponentFiles,
  type ImportResult,
  npmPackages,
  publishFiles,
  resolvePackageDir,
} from "../_registry-import.js";
import { _didYouMean } from "../_suggest.js";

/** One result as a line. @internal */
export function _resultLine(r: ImportResult): string {
  const what = r.key ? `${r.key}${r.version ? `@${r.version}` : ""}` : r.file;
  if (r.status === "published") return `${style.green("✔")} ${what}`;
  if (r.status === "exists") return `${style.dim("=")} ${what} ${style.dim("(already published)")}`;
  return `${style.red("✘")} ${r.file}: ${r.error?.code}: ${r.error?.message}`;
}

export default defineCommand({
  name: "registry",
  summary:
    "Import the components of an npm package (such as @pipedream/slack) or a folder into the registry.",
  examples: ["pd registry import @pipedream/slack", "pd registry import ./components/acme --private"],
  usage:
    "registry import <npm package[@range]|folder> [--private] [--no-npm] [--npm-registry URL] [--json] [-p PROFILE]",
  options: { private: { type: "boolean" }, ..._npmOptions, ..._jsonOption, ..._profileOption },
  async run(args) {
    const action = _required(args, 0, this.usage);
    if (action !== "import")
      throw new CliError(
        "usage",
        `unknown action "${action}"${_didYouMean(action, ["import"])}; usage: pd ${this.usage}`,
      );
    const spec = _required(args, 1, this.usage);
    const json = _flag(args, "json");
    const visibility = _flag(args, "private") ? "private" : "public";
    const client = _client(args);

    const { declaredRanges, packageComponentFiles } = await npmPackages();
    let root: string;
    let files: string[];
    let label: string;
    if (existsSync(spec) && statSync(spec).isDirectory()) {
      root = resolve(spec);
      files = packageComponentFiles(root);
      if (files.length === 0) files = folderComponentFiles(root);
      label = root;
    } else {
      const { packages } = _packagesOptions(args, _userCacheDir());
      if (!json) note(style.dim(`Fetching ${spec}...`, process.stderr));
      const found = await resolvePackageDir(spec, packages);
      root = found.dir;
      files = packageComponentFiles(root);
      label = `${found.name}@${found.version}`;
    }
    if (files.length === 0)
      throw new CliError(
        "no_components",
        `${label} has no component files (sources/<name>/<name>.mjs, actions/...)`,
      );
    if (!json)
      note(style.dim(`Publishing ${files.length} components of ${label} (${visibility})...`, process.stderr));

    const results = await publishFiles(
      root,
      files,
      async (component) =>
        client.request<{ id: string; key: string; version: string }>("POST", "/v1/components/registry", {
          component_code: component.code,
          filename: component.filename,
          visibility,
        }),
      json ? undefined : (r) => out(_resultLine(r)),
      declaredRanges(root),
    );
    const count = (status: ImportResult["status"]) => results.filter((r) => r.status === status).length;
    if (json) printJson({ package: label, visibility, results });
    else
      out(
        `${label}: ${count("published")} published, ${count("exists")} already published, ${count("failed")} failed`,
      );
    if (count("published") + count("exists") === 0)
      throw new CliError("import_failed", `no component of ${label} could be published`);
  },
});
