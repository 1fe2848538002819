/**
 * Maps stack frames of a bundle back to the component's own files and lines, using the inline
 * source map esbuild appends. Decoding is lazy: only an error with a stack pays for it.
 */

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

interface RawMap {
  sources: string[];
  mappings: string;
}

/** Per generated line: sorted [generatedColumn, sourceIndex, originalLine, originalColumn]. */
type Segments = number[][];

function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let shift = 0;
  let value = 0;
  for (const ch of segment) {
    const digit = B64_INDEX.get(ch) ?? 0;
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function decodeMappings(mappings: string): Segments[] {
  const lines: Segments[] = [];
  let source = 0;
  let line = 0;
  let column = 0;
  for (const text of mappings.split(";")) {
    const segments: Segments = [];
    let generated = 0;
    if (text !== "") {
      for (const part of text.split(",")) {
        const v = decodeVlq(part);
        generated += v[0] ?? 0;
        if (v.length >= 4) {
          source += v[1] ?? 0;
          line += v[2] ?? 0;
          column += v[3] ?? 0;
          segments.push([generated, source, line, column]);
        }
      }
    }
    lines.push(segments);
  }
  return lines;
}

/** Finds the inline source map of a bundle, or undefined. */
function readInlineMap(code: string): RawMap | undefined {
  const marker = "//# sourceMappingURL=data:application/json;base64,";
  const at = code.lastIndexOf(marker);
  if (at === -1) return undefined;
  try {
    const json = Buffer.from(code.slice(at + marker.length).trim(), "base64").toString("utf8");
    const map = JSON.parse(json) as RawMap;
    return Array.isArray(map.sources) && typeof map.mappings === "string" ? map : undefined;
  } catch {
    return undefined;
  }
}

/** A function from a stack string (frames of `file`) to the same stack in original positions. */
export type StackMapper = (stack: string) => string;

/** A frame of the sandbox itself (its prelude, QuickJS's native calls, evaluated glue). */
const SANDBOX_FRAME = /^\s*at .*\((?:hookline:|native\)|<input>)/;

/**
 * The stack without the sandbox's own frames (`at dispatch (hookline:prelude.js:171:1)`,
 * `at call (native)`): what is left points into the component's files, as a user reads it.
 */
export function ownFrames(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !SANDBOX_FRAME.test(line))
    .join("\n");
}

/**
 * Builds a {@link StackMapper} for a bundle evaluated under the file name `file`, whose first line
 * was prefixed with `firstLineOffset` characters; the sandbox's own frames are left out.
 */
export function createStackMapper(code: string, file: string, firstLineOffset: number): StackMapper {
  let decoded: { map: RawMap; lines: Segments[] } | null | undefined;
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const frame = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`, "g");
  return (stack) => {
    if (decoded === undefined) {
      const map = readInlineMap(code);
      decoded = map ? { map, lines: decodeMappings(map.mappings) } : null;
    }
    const d = decoded;
    if (!d) return ownFrames(stack);
    const mapped = stack.replace(frame, (whole, lineText: string, columnText?: string) => {
      const line = Number(lineText) - 1;
      let column = columnText === undefined ? 0 : Number(columnText) - 1;
      if (line === 0) column = Math.max(0, column - firstLineOffset);
      const segments = d.lines[line];
      if (!segments || segments.length === 0) return whole;
      let best = segments[0] as number[];
      for (const seg of segments) {
        if ((seg[0] ?? 0) <= column) best = seg;
        else break;
      }
      const source = (d.map.sources[best[1] ?? 0] ?? file).replace(/^hookline:\/component\/(?:_\/)*/, "");
      return `${source}:${(best[2] ?? 0) + 1}:${(best[3] ?? 0) + 1}`;
    });
    return ownFrames(mapped);
  };
}
