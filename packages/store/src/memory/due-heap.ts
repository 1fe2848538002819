/**
 * Due pending deliveries of the memory store as a binary min-heap of `[nextAttemptAt, id]`,
 * validated lazily on pop: an entry whose row is no longer pending at that time is dropped, so state
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
}

/** Makes the heap over the store's `rows`. */
export function createDueHeap(rows: Map<string, Delivery>): DueHeap {
  const heap: Entry[] = [];
  const at = (i: number): Entry => heap[i] as Entry;
  const swap = (i: number, j: number): void => {
    [heap[i], heap[j]] = [at(j), at(i)];
  };
  const push = (row: Delivery): void => {
    heap.push([row.nextAttemptAt, row.id]);
    let i = heap.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!less(at(i), at(up))) break;
      swap(i, up);
      i = up;
    }
  };
  const pop = (): Entry | undefined => {
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
  };
  return {
    push,
    popDue(now, max, accept) {
      const out: Delivery[] = [];
      const refused: Delivery[] = [];
      while (out.length < max && heap.length > 0 && at(0)[0] <= now) {
        const [due, id] = pop() as Entry;
        const row = rows.get(id);
        if (row?.state !== "pending" || row.nextAttemptAt !== due) continue;
        if (accept(row)) out.push(row);
        else refused.push(row);
      }
      for (const row of refused) push(row);
      return out;
    },
  };
}
