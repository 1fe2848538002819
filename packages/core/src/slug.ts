/**
 * Turns a name into a URL-safe slug: lower case, ASCII letters and digits, words joined by `-`.
 *
 * @example
 * ```ts
 * slugify("New Issue (GitHub)!"); // "new-issue-github"
 * ```
 */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * A slug for `name` that is not in `existing`: the plain slug when free, else the slug followed by
 * the smallest free `-1`, `-2`, ... suffix. A pure function of the existing slugs.
 *
 * @param fallback - The slug to use when the name has no letters or digits (default `component`).
 * @example
 * ```ts
 * uniqueSlug("My Source", ["my-source", "my-source-1"]); // "my-source-2"
 * ```
 */
export function uniqueSlug(name: string, existing: Iterable<string>, fallback = "component"): string {
  const base = slugify(name) || fallback;
  const taken = new Set(existing);
  if (!taken.has(base)) return base;
  for (let n = 1; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
