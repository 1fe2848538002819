/**
 * Component code by URL: the file, and the relative files it imports (`../../http.app.mjs`, the
 * usual layout of Pipedream's components), fetched from the same base URL through the guarded
 * transport, as `pd deploy <file>` bundles a file with its relative imports. Which files are
 * needed comes from the runtime itself: loading reports the relative imports it could not find
 * (`missingFiles`), they are fetched, and loading runs again, within a bounded count and size.
 */
import { HooklineError } from "@hookline/core";
import type { Transport } from "@hookline/delivery";
import type { LoadInput } from "@hookline/runtime";

/** Bounds of one component fetched by URL. */
export interface CodeUrlLimits {
  /** Most relative files fetched besides the component itself (default 50). */
  maxFiles: number;
  /** Most bytes of one file (default 1 MB). */
  fileBytes: number;
  /** Most bytes of all files together (default 5 MB). */
  totalBytes: number;
  /** Deadline of each request, ms (default 15,000). */
  timeoutMs: number;
}

/**
 * The bounds every `component_url` fetch keeps: how many files, how large each and all together,
 * and how long one request may take. Exported so callers can show them or check code before sending it.
 *
 * @example
 * ```ts
 * import { DEFAULT_CODE_URL_LIMITS } from "@hookline/engine";
 * if (code.length > DEFAULT_CODE_URL_LIMITS.fileBytes) throw new Error("too large to deploy by URL");
 * ```
 */
export const DEFAULT_CODE_URL_LIMITS: CodeUrlLimits = {
  maxFiles: 50,
  fileBytes: 1024 * 1024,
  totalBytes: 5 * 1024 * 1024,
  timeoutMs: 15_000,
};

/** What {@link createCodeFetcher} needs. */
export interface CodeFetcherContext {
  transport: Transport;
  /** Bundles and describes code (the runtime's `load`); throws `module_not_found` with `missingFiles`. */
  load(input: LoadInput): Promise<unknown>;
  limits?: Partial<CodeUrlLimits>;
}

/** Component code fetched by URL, ready for `components.save` or `sources.deploy`. */
export interface FetchedSource {
  code: string;
  filename?: string;
  /** The relative files it imports, keyed by their path relative to its folder. */
  files?: Record<string, string>;
}

/** The engine's `fetchCode` (one file) and `fetchSource` (a file and its relative imports). */
export function createCodeFetcher(ctx: CodeFetcherContext) {
  const limits: CodeUrlLimits = { ...DEFAULT_CODE_URL_LIMITS, ...ctx.limits };

  async function fetchText(url: string, importedAs?: string): Promise<string> {
    let res: Response;
    try {
      res = await ctx.transport.fetch(url, { method: "GET", signal: AbortSignal.timeout(limits.timeoutMs) });
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new HooklineError("bad_request", `Could not fetch ${url}: ${(error as Error).message}`, {
        ...(code ? { cause: code } : {}),
      });
    }
    if (res.status < 200 || res.status > 299) {
      if (importedAs !== undefined)
        throw new HooklineError(
          "module_not_found",
          `Cannot fetch "${importedAs}", imported by the component: ${url} answered ${res.status}`,
          { url, status: res.status },
        );
      throw new HooklineError("bad_request", `Fetching ${url} answered ${res.status}`);
    }
    const text = await res.text();
    if (text.length > limits.fileBytes)
      throw new HooklineError("payload_too_large", `${url} is over ${limits.fileBytes} bytes`);
    return text;
  }

  /** A relative import's file: as named, else (without an extension) with `.mjs` or `.js`. */
  async function fetchRelative(base: URL, relative: string): Promise<{ key: string; text: string }> {
    const last = relative.split("/").pop() ?? "";
    const keys = /\.[A-Za-z]+$/.test(last) ? [relative] : [relative, `${relative}.mjs`, `${relative}.js`];
    let failure: unknown;
    for (const key of keys) {
      const url = new URL(key, base);
      if (url.origin !== base.origin) break;
      try {
        return { key, text: await fetchText(url.href, relative) };
      } catch (error) {
        failure = error;
        if ((error as HooklineError).code !== "module_not_found") throw error;
      }
    }
    throw (
      failure ?? new HooklineError("module_not_found", `Cannot fetch "${relative}": not on ${base.origin}`)
    );
  }

  return {
    /** One file by URL through the guarded transport: 2xx only, bounded in size. */
    fetchCode: (url: string) => fetchText(url),

    /**
     * The component at `url` with every relative file it imports (recursively), fetched from the
     * same base URL: at most `maxFiles` files and `totalBytes` bytes (`payload_too_large`); a
     * relative file that cannot be fetched is `module_not_found` naming it.
     */
    async fetchSource(url: string): Promise<FetchedSource> {
      if (!URL.canParse(url)) throw new HooklineError("bad_request", `component_url is not a URL: ${url}`);
      const base = new URL(url);
      const code = await fetchText(url);
      const filename = base.pathname.split("/").pop() || undefined;
      const gathered = await gatherFiles(
        ctx.load,
        { code, filename: filename ?? "component.mjs" },
        limits,
        (relative) => fetchRelative(base, relative),
      );
      return { code, ...(filename ? { filename } : {}), ...(gathered ? { files: gathered } : {}) };
    },
  };
}

/**
 * The relative files a component imports, read one round at a time: loading reports the relative
 * imports it could not find (`missingFiles`), `read` gets each, and loading runs again, within
 * `limits.maxFiles` and `limits.totalBytes` (`payload_too_large`). Undefined when it imports none.
 * @internal
 */
export async function gatherFiles(
  load: (input: LoadInput) => Promise<unknown>,
  input: { code: string; filename: string },
  limits: Pick<CodeUrlLimits, "maxFiles" | "totalBytes">,
  read: (relative: string) => Promise<{ key: string; text: string }>,
): Promise<Record<string, string> | undefined> {
  const files: Record<string, string> = {};
  let total = input.code.length;
  let count = 0;
  for (;;) {
    let missing: string[] | undefined;
    try {
      await load({ ...input, files });
      return count > 0 ? files : undefined;
    } catch (error) {
      missing = ((error as HooklineError).details as { missingFiles?: string[] } | undefined)?.missingFiles;
      const stuck = missing?.some((relative) => relative in files);
      if ((error as HooklineError).code !== "module_not_found" || !missing?.length || stuck) throw error;
    }
    for (const relative of missing) {
      if (++count > limits.maxFiles)
        throw new HooklineError(
          "payload_too_large",
          `The component imports more than ${limits.maxFiles} relative files`,
        );
      const got = await read(relative);
      total += got.text.length;
      if (total > limits.totalBytes)
        throw new HooklineError(
          "payload_too_large",
          `The component and its relative files are over ${limits.totalBytes} bytes`,
        );
      files[got.key] = got.text;
    }
  }
}
