/**
 * The delivery-rate chart of a webhook, from `GET /v1/webhooks/{id}/metrics` (the attempt log):
 * attempts per time bucket stacked by outcome, as plain SVG (no chart library: a few hundred
 * bytes), and the window's success rate, latency percentiles and status classes. Loaded on
 * demand with the webhook page, so /sources does not carry it.
 */
import { useState } from "preact/hooks";
import { api, seg } from "./api";
import { useLoad, usePoll } from "./hooks";
import type { WebhookMetrics } from "./types";
import { ErrorNote, Loading } from "./widgets";

/** The windows offered: their length and their bucket, in seconds. */
export const WINDOWS = [
  { id: "1h", label: "Last hour", size: 300, bars: 12 },
  { id: "24h", label: "Last 24 hours", size: 7200, bars: 12 },
  { id: "7d", label: "Last 7 days", size: 43200, bars: 14 },
] as const;

/** One bucket's metrics, with its start (epoch seconds). */
export interface MetricsBucket {
  start: number;
  metrics: WebhookMetrics;
}

/** The window's summary and its buckets, ending at the bucket boundary after `nowSec`. */
export async function loadMetrics(
  webhookId: string,
  window: (typeof WINDOWS)[number],
  nowSec: number,
): Promise<{ total: WebhookMetrics; buckets: MetricsBucket[] }> {
  const end = Math.floor(nowSec / window.size) * window.size + window.size;
  const start = end - window.bars * window.size;
  const read = (since: number, until: number) =>
    api<WebhookMetrics>("GET", `/v1/webhooks/${seg(webhookId)}/metrics`, undefined, { since, until });
  const starts = Array.from({ length: window.bars }, (_, i) => start + i * window.size);
  const [total, ...each] = await Promise.all([
    read(start, end),
    ...starts.map((s) => read(s, s + window.size)),
  ]);
  return {
    total: total as WebhookMetrics,
    buckets: each.map((metrics, i) => ({ start: starts[i] as number, metrics })),
  };
}

function sizeName(size: number): string {
  if (size < 3600) return `${size / 60} min`;
  if (size < 86400) return `${size / 3600} h`;
  return `${size / 86400} d`;
}

const clock = (sec: number | undefined) =>
  sec === undefined
    ? ""
    : new Date(sec * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 1000) / 10}%`);
const ms = (v: number | null) => (v === null ? "—" : `${v} ms`);

/** The chart and the window's figures (refreshed every 10 seconds). */
export function DeliveryChart({ webhookId }: { webhookId: string }) {
  const [windowId, setWindowId] = useState<string>("24h");
  const window = WINDOWS.find((w) => w.id === windowId) ?? WINDOWS[1];
  const data = useLoad(
    () => loadMetrics(webhookId, window, Math.floor(Date.now() / 1000)),
    [webhookId, windowId],
  );
  usePoll(data.reload, 10_000);
  return (
    <section class="card" aria-labelledby="rate-title">
      <div class="row wrap">
        <h2 id="rate-title">Delivery rate</h2>
        <label for="rate-window" class="visually-hidden">
          Window
        </label>
        <select id="rate-window" value={windowId} onChange={(e) => setWindowId(e.currentTarget.value)}>
          {WINDOWS.map((w) => (
            <option key={w.id} value={w.id}>
              {w.label}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={data.error} label="Could not load the metrics" />
      {data.loading && !data.data ? <Loading what="metrics" /> : null}
      {data.data ? <Chart {...data.data} size={window.size} label={window.label} /> : null}
    </section>
  );
}

function Chart({
  total,
  buckets,
  size,
  label,
}: {
  total: WebhookMetrics;
  buckets: MetricsBucket[];
  size: number;
  label: string;
}) {
  const max = Math.max(1, ...buckets.map((b) => b.metrics.attempts));
  const W = 480;
  const H = 120;
  const bw = W / buckets.length;
  const summary = `Attempts per ${sizeName(size)}, ${label.toLowerCase()}: ${total.attempts} attempts, ${total.succeeded} succeeded, ${total.failed} failed, success rate ${percent(total.success_rate)}.`;
  const classes = Object.entries(total.status_classes).filter(([, n]) => n > 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H + 4}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1="0" y1={H} x2={W} y2={H} class="axis" />
        {buckets.map((b, i) => {
          const ok = (b.metrics.succeeded / max) * (H - 4);
          const bad = (b.metrics.failed / max) * (H - 4);
          return (
            <g key={b.start}>
              <title>{`${new Date(b.start * 1000).toLocaleString()}: ${b.metrics.attempts} attempts, ${b.metrics.succeeded} succeeded, ${b.metrics.failed} failed, p95 ${ms(b.metrics.latency_ms.p95)}`}</title>
              {ok > 0 ? <rect class="bar-ok" x={i * bw + 1} y={H - ok} width={bw - 2} height={ok} /> : null}
              {bad > 0 ? (
                <rect class="bar-bad" x={i * bw + 1} y={H - ok - bad} width={bw - 2} height={bad} />
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="legend ok">succeeded (2xx)</span> <span class="legend bad">failed</span>{" "}
        <span class="muted">
          · one bar per {sizeName(size)}, from {clock(buckets[0]?.start)} to {clock(total.until)}
        </span>
      </figcaption>
      <dl class="metrics" data-testid="webhook-metrics">
        <div>
          <dt>Attempts</dt>
          <dd>{total.attempts}</dd>
        </div>
        <div>
          <dt>Succeeded</dt>
          <dd>{total.succeeded}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{total.failed}</dd>
        </div>
        <div>
          <dt>Success rate</dt>
          <dd>{percent(total.success_rate)}</dd>
        </div>
        <div>
          <dt>p50</dt>
          <dd>{ms(total.latency_ms.p50)}</dd>
        </div>
        <div>
          <dt>p95</dt>
          <dd>{ms(total.latency_ms.p95)}</dd>
        </div>
        <div>
          <dt>p99</dt>
          <dd>{ms(total.latency_ms.p99)}</dd>
        </div>
        <div>
          <dt>By status</dt>
          <dd>{classes.length === 0 ? "—" : classes.map(([c, n]) => `${c}: ${n}`).join(", ")}</dd>
        </div>
      </dl>
    </figure>
  );
}
