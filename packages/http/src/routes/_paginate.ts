/** Cursor pagination of a list already in memory, ordered by id (ids are time-ordered). */
import type { PageInfo } from "../_define.js";

/** One page of `items` after the cursor `after`, with `page_info`. */
export function paginate<T>(
  items: T[],
  idOf: (item: T) => string,
  params: { limit?: number; after?: string },
): { list: T[]; pageInfo: PageInfo; cursor: (index: number) => string } {
  const sorted = [...items].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  const start = params.after ? sorted.findIndex((item) => idOf(item) > (params.after as string)) : 0;
  const from = start === -1 ? sorted.length : start;
  const list = sorted.slice(from, from + (params.limit ?? 20));
  return {
    list,
    cursor: (index) => idOf(list[index] as T),
    pageInfo: {
      total_count: sorted.length,
      count: list.length,
      start_cursor: list.length > 0 ? idOf(list[0] as T) : null,
      end_cursor:
        list.length > 0 && from + list.length < sorted.length ? idOf(list[list.length - 1] as T) : null,
    },
  };
}
