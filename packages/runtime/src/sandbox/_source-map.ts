/**
 * Maps stack frames of a bundle back to the component's own files and lines, using the inline
 * source map esbuild appends. Decoding is lazy: only an error with a stack pays for it. Decoded
 * maps live in one cache per thread, keyed by the bundle and bounded by their size, not in the
 * mapper: a mounted sandbox that once threw does not keep its bundle's decoded map for as long as
 * it is mounted (an SDK bundle's is millions of segments; kept by every mounted step and source,
 * they filled the heap of `npm run compat:run`).
 */
import { LRUCache } from "lru-cache";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Base64 digit of each character code (0 for a character that is not one). */
const B64_INDEX = new Uint8Array(128);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

interface RawMap {
  sources: string[];
  mappings: string;
}

/**
 * A bundle's decoded map: its sources (without their content) and its segments, four numbers each
 * (generatedColumn, sourceIndex, originalLine, originalColumn), sorted by generated line then
 * column in one flat array (16 bytes a segment); line `n`'s are those from `lineStart[n]` to
 * `lineStart[n + 1]` (in segments).
 */
interface Decoded {
  sources: string[];
  segments: Int32Array;
  lineStart: Uint32Array;
}

/** Segments the cache holds at most, over all its maps (16 bytes each: 64 MB). */
const CACHE_SEGMENTS = 4_000_000;

/** The decoded maps of recently mapped bundles (`{ none: true }`: the bundle has none). */
const decodedMaps = new LRUCache<string, Decoded | { none: true }>({
  maxSize: CACHE_SEGMENTS,
  sizeCalculation: (d) => ("segments" in d ? Math.max(1, d.segments.length / 4) : 1),
});

/** How many bundles the cache holds now (for tests). @internal */
export function decodedMapCount(): number {
  return decodedMaps.size;
}

/**
 * Decodes the mappings in one pass over their characters (a large SDK's are megabytes): segments
 * of four or five fields are kept, a one-field segment only moves the generated column.
 */
function decodeMappings(mappings: string): Omit<Decoded, "sources"> {
  let values = new Int32Array(4096);
  let count = 0;
  const starts: number[] = [0];
  const field = [0, 0, 0, 0];
  let fields = 0;
  let value = 0;
  let shift = 0;
  let generated = 0;
  let source = 0;
  let line = 0;
  let column = 0;
  const endSegment = () => {
    if (fields > 0) generated += field[0] ?? 0;
    if (fields >= 4) {
      source += field[1] ?? 0;
      line += field[2] ?? 0;
      column += field[3] ?? 0;
      if (count + 4 > values.length) {
        const grown = new Int32Array(values.length * 2);
        grown.set(values);
        values = grown;
      }
      values[count++] = generated;
      values[count++] = source;
      values[count++] = line;
      values[count++] = column;
    }
    fields = 0;
  };
  for (let i = 0; i < mappings.length; i++) {
    const code = mappings.charCodeAt(i);
    if (code === 59 /* ; */) {
      endSegment();
      starts.push(count / 4);
      generated = 0;
    } else if (code === 44 /* , */) endSegment();
    else {
      const digit = B64_INDEX[code] ?? 0;
      value += (digit & 31) << shift;
      if (digit & 32) shift += 5;
      else {
        if (fields < 4) field[fields] = value & 1 ? -(value >>> 1) : value >>> 1;
        fields++;
        value = 0;
        shift = 0;
      }
    }
  }
  endSegment();
  starts.push(count / 4);
  return { segments: values.slice(0, count), lineStart: Uint32Array.from(starts) };
}

/** The bundle's decoded map, from the cache or decoded now; undefined when it has none. */
function decodedOf(code: string): Decoded | undefined {
  const hit = decodedMaps.get(code);
  if (hit) return "segments" in hit ? hit : undefined;
  const map = readInlineMap(code);
  const decoded = map ? { sources: map.sources, ...decodeMappings(map.mappings) } : undefined;
  decodedMaps.set(code, decoded ?? { none: true });
  return decoded;
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
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const frame = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`, "g");
  return (stack) => {
    frame.lastIndex = 0;
    if (!frame.test(stack)) return ownFrames(stack);
    const d = decodedOf(code);
    if (!d) return ownFrames(stack);
    const mapped = stack.replace(frame, (whole, lineText: string, columnText?: string) => {
      const line = Number(lineText) - 1;
      let column = columnText === undefined ? 0 : Number(columnText) - 1;
      if (line === 0) column = Math.max(0, column - firstLineOffset);
      const first = d.lineStart[line];
      const end = d.lineStart[line + 1];
      if (first === undefined || end === undefined || end === first) return whole;
      const { segments } = d;
      let best = first * 4;
      for (let at = best + 4; at < end * 4 && (segments[at] ?? 0) <= column; at += 4) best = at;
      const source = (d.sources[segments[best + 1] ?? 0] ?? file).replace(
        /^hookline:\/component\/(?:_\/)*/,
        "",
      );
      return `${source}:${(segments[best + 2] ?? 0) + 1}:${(segments[best + 3] ?? 0) + 1}`;
    });
    return ownFrames(mapped);
  };
}
