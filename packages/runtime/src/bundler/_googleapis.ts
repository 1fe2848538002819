/**
 * The `googleapis` package requires every one of its ~300 APIs (about 36 MB of JavaScript) from
 * two index files, so a component that imports it for Gmail bundled all of them and could not be
 * loaded in a sandbox's memory. Node loads them all too, but cheaply; QuickJS compiles a bundle
 * whole. So the bundler keeps only the APIs a component names: an API whose name (`gmail`,
 * `sheets`, `youtube`...) appears as a word in the component's files, or in a package file that
 * imports `googleapis`, is bundled as it is; the others are left out, and calling one
 * (`google.drive(...)`) throws an error that says so (docs/runtime.md, "npm packages").
 * @internal
 */

/** The two index files of `googleapis` that require every API. */
export const GOOGLEAPIS_INDEX =
  /[\\/]node_modules[\\/]googleapis[\\/]build[\\/]src[\\/](apis[\\/])?index\.js$/;

/** The words (identifier-like runs) of `text`, added to `into`. */
export function addWords(text: string, into: Set<string>): Set<string> {
  for (const word of text.match(/[A-Za-z_$][\w$]*/g) ?? []) into.add(word);
  return into;
}

/** What an API left out of the bundle is replaced with: its entry point throws, naming it. */
function leftOut(api: string): string {
  const message = `googleapis: the "${api}" API was left out of the bundle because no component file names it; name it (for example google.${api}(...)) in the component's code`;
  return `({ VERSIONS: {}, ${JSON.stringify(api)}: function () { throw new Error(${JSON.stringify(message)}); } })`;
}

/**
 * `text` of googleapis' `build/src/apis/index.js` (`apisIndex`) or `build/src/index.js` with the
 * requires of APIs not in `words` replaced: by {@link leftOut} in the former, by an empty object
 * in the latter (it only re-exports each version's namespace through a getter).
 *
 * @example
 * trimGoogleApis('const gmail_1 = require("./gmail");', true, new Set(["gmail"])); // unchanged
 */
export function trimGoogleApis(text: string, apisIndex: boolean, words: Set<string>): string {
  if (apisIndex)
    return text.replace(/require\("\.\/([\w$]+)"\)/g, (whole, api: string) =>
      words.has(api) ? whole : leftOut(api),
    );
  return text.replace(/require\("\.\/apis\/([\w$]+)\/[\w$.]+"\)/g, (whole, api: string) =>
    words.has(api) ? whole : "({})",
  );
}
