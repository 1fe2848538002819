/** The delivery-rate chart: deliveries per time bucket, stacked by outcome, as plain SVG. */
import type { Delivery } from "./types";

const STEPS = [60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400];
const BARS = 24;

/** Deliveries counted per bucket, by outcome. */
export interface Bucket {
  start: number;
  succeeded: number;
  failed: number;
  open: number;
}

/** Buckets (of 1 min to 1 week, the smallest that covers the deliveries in {@link BARS} bars) ending now. */
export function bucketize(deliveries: Delivery[], nowSec: number): { size: number; buckets: Bucket[] } {
  const oldest = Math.min(nowSec, ...deliveries.map((d) => d.created_at));
  const size = STEPS.find((s) => (nowSec - oldest) / s < BARS) ?? (STEPS[STEPS.length - 1] as number);
  const end = Math.floor(nowSec / size) * size + size;
  const buckets: Bucket[] = Array.from({ length: BARS }, (_, i) => ({
    start: end - (BARS - i) * size,
    succeeded: 0,
    failed: 0,
    open: 0,
  }));
  for (const d of deliveries) {
    const b = buckets[Math.floor((d.created_at - (end - BARS * size)) / size)];
    if (!b) continue;
    if (d.status === "succeeded") b.succeeded++;
    else if (d.status === "failed") b.failed++;
    else b.open++;
  }
  return { size, buckets };
}

function sizeName(size: number): string {
  if (size < 3600) return `${size / 60} min`;
  if (size < 86400) return `${size / 3600} h`;
  return `${size / 86400} d`;
}

/** The chart, with a text summary for assistive technology. */
export function DeliveryChart({ deliveries, now = Date.now() }: { deliveries: Delivery[]; now?: number }) {
  const { size, buckets } = bucketize(deliveries, Math.floor(now / 1000));
  const max = Math.max(1, ...buckets.map((b) => b.succeeded + b.failed + b.open));
  const totals = buckets.reduce((t, b) => ({ s: t.s + b.succeeded, f: t.f + b.failed, o: t.o + b.open }), {
    s: 0,
    f: 0,
    o: 0,
  });
  const W = 480;
  const H = 120;
  const bw = W / BARS;
  const summary = `Deliveries per ${sizeName(size)} over the last ${sizeName(size * BARS)}: ${totals.s} succeeded, ${totals.f} failed, ${totals.o} pending.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H + 16}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1="0" y1={H} x2={W} y2={H} class="axis" />
        {buckets.map((b, i) => {
          let y = H;
          const parts: [number, string][] = [
            [b.succeeded, "ok"],
            [b.failed, "bad"],
            [b.open, "open"],
          ];
          return (
            <g key={b.start}>
              <title>{`${new Date(b.start * 1000).toLocaleString()}: ${b.succeeded} succeeded, ${b.failed} failed, ${b.open} pending`}</title>
              {parts.map(([n, cls]) => {
                if (n === 0) return null;
                const h = (n / max) * (H - 4);
                y -= h;
                return <rect key={cls} class={`bar-${cls}`} x={i * bw + 1} y={y} width={bw - 2} height={h} />;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="legend ok">succeeded {totals.s}</span> <span class="legend bad">failed {totals.f}</span>{" "}
        <span class="legend open">pending {totals.o}</span>{" "}
        <span class="muted">· one bar per {sizeName(size)}</span>
      </figcaption>
    </figure>
  );
}
