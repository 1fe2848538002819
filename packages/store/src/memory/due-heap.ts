/**
 * Due pending deliveries of the memory store as a binary min-heap of `[nextAttemptAt, id]`,
 * validated lazily on pop (one heap per webhook): an entry whose row is no longer pending at that time is dropped, so state
 * changes never have to find their entry. Claims cost O(k log n).
 */
import type { Delivery } from "../types/index.js";

type Entry = [number, string];

const less = (a: Entry, b: Entry): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/** The heap of due deliveries. */
export interface DueHeap {
  /** Queues a pending row at its `nextAttemptAt`. */
  push(row: Delivery): void;
  /**
   * Pops up to `max` valid due rows (pending, due at `now`), earliest first; `accept` may refuse a
   * row, which stays queued.
   */
  popDue(now: number, max: number, accept: (row: Delivery) => boolean): Delivery[];
  /** Pops the earliest valid due row of one webhook, if any. */
  popDueOf(webhookId: string, now: number): Delivery | undefined;
}

/** One binary min-heap of entries. */
function createHeap() {
  const heap: Entry[] = [];
  const at = (i: number): Entry => heap[i] as Entry;
  const swap = (i: number, j: number): void => {
    [heap[i], heap[j]] = [at(j), at(i)];
  };
  return {
    get size() {
      return heap.length;
    },
    top: (): Entry | undefined => heap[0],
    push(entry: Entry): void {
      heap.push(entry);
      let i = heap.length - 1;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!less(at(i), at(up))) break;
        swap(i, up);
        i = up;
      }
    },
    pop(): Entry | undefined {
      const top = heap[0];
      const last = heap.pop();
      if (heap.length > 0 && last) {
        heap[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && less(at(l), at(m))) m = l;
          if (r < heap.length && less(at(r), at(m))) m = r;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
      return top;
    },
  };
}

/**
 * Makes the heap over the store's `rows`: one heap per webhook, so that a claim skips a webhook
 * whose rows `accept` refuses (it is full) without popping its backlog: once `accept` refuses a row,
 * the rest of that webhook's rows are left alone for this call. A claim costs O(k (w + log n)) for
 * k rows over w webhooks with due rows.
 */
export function createDueHeap(rows: Map<string, Delivery>): DueHeap {
  const heaps = new Map<string, ReturnType<typeof createHeap>>();
  const push = (row: Delivery): void => {
    let heap = heaps.get(row.webhookId);
    if (!heap) {
      heap = createHeap();
      heaps.set(row.webhookId, heap);
    }
    heap.push([row.nextAttemptAt, row.id]);
  };
  return {
    push,
    popDue(now, max, accept) {
      const out: Delivery[] = [];
      const skipped = new Set<string>();
      while (out.length < max) {
        // The webhook whose earliest row is the earliest due one.
        let best: { webhookId: string; heap: ReturnType<typeof createHeap>; top: Entry } | undefined;
        for (const [webhookId, heap] of heaps) {
          const top = heap.top();
          if (!top) {
            heaps.delete(webhookId);
            continue;
          }
          if (top[0] > now || skipped.has(webhookId)) continue;
          if (!best || less(top, best.top)) best = { webhookId, heap, top };
        }
        if (!best) break;
        const [due, id] = best.heap.pop() as Entry;
        const row = rows.get(id);
        if (row?.state !== "pending" || row.nextAttemptAt !== due) continue;
        if (accept(row)) out.push(row);
        else {
          best.heap.push([due, id]);
          skipped.add(best.webhookId);
        }
      }
      return out;
    },
    popDueOf(webhookId, now) {
      const heap = heaps.get(webhookId);
      for (let top = heap?.top(); heap && top && top[0] <= now; top = heap.top()) {
        const [due, id] = heap.pop() as Entry;
        const row = rows.get(id);
        if (row?.state === "pending" && row.nextAttemptAt === due) return row;
      }
      return undefined;
    },
  };
}
