/** "Did you mean" for a mistyped command, action, option or name (fastest-levenshtein's distance). */
import { distance } from "fastest-levenshtein";

/**
 * The candidate `word` most likely meant, if one is close: the nearest by edit distance within a
 * third of its length (at least 1), else the only candidate that starts with it. @internal
 */
export function _closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  const prefixed: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === word) continue;
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
    if (lower.length >= 2 && candidate.toLowerCase().startsWith(lower)) prefixed.push(candidate);
  }
  return best ?? (prefixed.length === 1 ? prefixed[0] : undefined);
}

/** ` (did you mean "x"?)` when a candidate is close, else nothing. @internal */
export function _didYouMean(word: string, candidates: Iterable<string>): string {
  const match = _closest(word, candidates);
  return match === undefined ? "" : ` (did you mean "${match}"?)`;
}
