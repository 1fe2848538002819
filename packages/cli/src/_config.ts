/**
 * Profiles: `$XDG_CONFIG_HOME/hookline/config` (default `~/.config`), JSON, mode 600.
 * `HOOKLINE_API_KEY` and `HOOKLINE_BASE_URL` override the profile.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CliError } from "./_output.js";

/** The base URL when neither the environment nor a profile gives one. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:4100";

/** The data folder `pd serve` uses by default (relative to the working directory). */
export const DEFAULT_DATA_DIR = ".hookline";

/** One saved profile. */
export interface Profile {
  apiKey?: string;
  baseUrl?: string;
}

/** The config file's content. */
export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

/** The path of the config file. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "hookline", "config");
}

/** Reads the config file (an empty config when there is none). */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const path = configPath(env);
  if (!existsSync(path)) return { profiles: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<ConfigFile>;
    return { ...parsed, profiles: parsed.profiles ?? {} };
  } catch (error) {
    throw new CliError("invalid_config", `cannot read ${path}: ${(error as Error).message}`);
  }
}

/** Writes the config file with mode 600 (its folder 700). Returns its path. */
export function writeConfig(config: ConfigFile, env: NodeJS.ProcessEnv = process.env): string {
  const path = configPath(env);
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Where the credentials in use come from, for messages. */
export interface Credentials {
  baseUrl: string;
  apiKey: string | undefined;
  profile: string;
  keySource: string;
}

/** The file of the data folder where `pd serve` records the URL it listens on. */
export const URL_FILE = "url";

/** The trimmed text of a file of the local data folder (`./.hookline/<name>`), if any. @internal */
export function _local(name: string): { value: string; path: string } | undefined {
  const path = resolve(DEFAULT_DATA_DIR, name);
  if (!existsSync(path)) return undefined;
  const value = readFileSync(path, "utf8").trim();
  return value ? { value, path } : undefined;
}

/**
 * The credentials to call the API with, each of the key and the URL from the first that gives it:
 * the environment (`HOOKLINE_API_KEY`, `HOOKLINE_BASE_URL`), then the profile (`-p`, else
 * `HOOKLINE_PROFILE`, else the config's default, else `default`), then what a `pd serve` started in
 * this folder wrote to `./.hookline/` (`api-key`, `url`), then `http://127.0.0.1:4100` for the URL.
 */
export function resolveCredentials(profileName?: string, env: NodeJS.ProcessEnv = process.env): Credentials {
  const config = readConfig(env);
  const profile = profileName ?? env.HOOKLINE_PROFILE ?? config.defaultProfile ?? "default";
  const saved = config.profiles[profile] ?? {};
  const baseUrl = (
    env.HOOKLINE_BASE_URL ||
    saved.baseUrl ||
    _local(URL_FILE)?.value ||
    DEFAULT_BASE_URL
  ).replace(/\/+$/, "");
  if (env.HOOKLINE_API_KEY)
    return { baseUrl, apiKey: env.HOOKLINE_API_KEY, profile, keySource: "HOOKLINE_API_KEY" };
  if (saved.apiKey) return { baseUrl, apiKey: saved.apiKey, profile, keySource: `profile "${profile}"` };
  const local = _local("api-key");
  if (local) return { baseUrl, apiKey: local.value, profile, keySource: local.path };
  return { baseUrl, apiKey: undefined, profile, keySource: "none" };
}
