/** Source locations in messages for people: `file:line:column: message` and the offending line. */

/** Where a problem is in a source file, as a bundler or parser reports it. */
export interface SourceLocation {
  /** The file, as the user knows it (`hello.mjs`, `lib/util.ts`). */
  file: string;
  /** 1-based line. */
  line: number;
  /** 0-based column (as esbuild reports it); shown 1-based. */
  column: number;
  /** The text of the line, shown under the message with a caret at the column. */
  lineText?: string;
}

/**
 * Formats a problem at a place in a file: `file:line:column: message`, then the line itself with a
 * caret under the column, so the reader sees what is wrong without opening the file.
 *
 * @example
 * ```ts
 * formatCodeFrame('Unexpected ";"', { file: "bad.mjs", line: 4, column: 18, lineText: "    const a = [1, 2,;" });
 * // bad.mjs:4:19: Unexpected ";"
 * //     4 |     const a = [1, 2,;
 * //       |                   ^
 * ```
 */
export function formatCodeFrame(message: string, location?: SourceLocation | null): string {
  if (!location) return message;
  const head = `${location.file}:${location.line}:${location.column + 1}: ${message}`;
  if (location.lineText === undefined || location.lineText.trim() === "") return head;
  const gutter = String(location.line);
  // Tabs would shift the caret: show them as two spaces on both lines.
  const text = location.lineText.replace(/\t/g, "  ");
  const before = location.lineText.slice(0, location.column).replace(/\t/g, "  ");
  return [
    head,
    `    ${gutter} | ${text}`,
    `    ${" ".repeat(gutter.length)} | ${" ".repeat(before.length)}^`,
  ].join("\n");
}
