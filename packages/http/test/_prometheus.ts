// Reads Prometheus text with a parser of its own (parse-prometheus-text-format, prom2json's shape),
// so that the tests check what a scraper would read, not what prom-client says it wrote.
// @ts-expect-error: the parser ships no types (its output is typed below).
import parsePrometheusTextFormat from "parse-prometheus-text-format";

/** One sample: a counter's or gauge's value, or a histogram's count, sum and buckets. */
export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}

/** A metric family as the parser returns it. */
export interface Family {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: Sample[];
}

/**
 * Parses the text into families by name. The parser keeps a histogram's labels only when it has
 * none (it flattens the samples of a labelled one into one set of buckets), so each histogram's
 * `_count`, `_sum` and `_bucket` series are also read as untyped families of their own, labels and
 * all (`<name>_count`).
 */
export function parseMetrics(text: string): Map<string, Family> {
  const families = parsePrometheusTextFormat(text) as Family[];
  const series = parsePrometheusTextFormat(
    text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"),
  ) as Family[];
  const byName = new Map(families.map((f) => [f.name, f]));
  // Each label set's `_bucket`, `_sum` and `_count` lines come in turn: a name recurs, merged here.
  const untyped = new Map<string, Family>();
  for (const family of series) {
    if (byName.has(family.name) && !untyped.has(family.name)) continue;
    const seen = untyped.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else {
      untyped.set(family.name, family);
      byName.set(family.name, family);
    }
  }
  return byName;
}

/**
 * The value of the sample of `name` whose labels include `labels` (a histogram's count), summed
 * over the samples that match; 0 when none does.
 */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(name);
  if (!family) throw new Error(`no metric ${name}`);
  let total = 0;
  for (const sample of family.metrics) {
    const own = sample.labels ?? {};
    if (Object.entries(labels).every(([k, v]) => own[k] === v))
      total += Number(sample.value ?? sample.count ?? 0);
  }
  return total;
}
