/**
 * Searching the registry (`GET /v1/components/registry?q=&type=&app=`): the app a component
 * belongs to, and whether it matches a query. One owner for both, so the REST API and the web
 * application's catalogue group and find the same way.
 */
import type { ComponentDescription } from "@hookline/core";

/** What a registry search may narrow by. */
export interface RegistrySearch {
  /** Words that must all appear (any case) in the key, name, description, app or file name. */
  query?: string;
  /** Only sources or only actions. */
  type?: "source" | "action";
  /** Only components of this app (see {@link componentApp}). */
  app?: string;
}

/**
 * The app a component belongs to: the app of its first `app` prop (`slack`), else its key's
 * first segment (`http` of `http-new-requests`, the public registry's `<app_slug>-<slug>`).
 *
 * @example
 * ```ts
 * componentApp({ key: "schedule-custom-interval", props: {} } as ComponentDescription); // "schedule"
 * ```
 */
export function componentApp(description: Pick<ComponentDescription, "key" | "props">): string | undefined {
  for (const prop of Object.values(description.props ?? {})) {
    if (prop.type === "app" && typeof prop.app === "string" && prop.app !== "") return prop.app;
  }
  const key = description.key ?? "";
  const dash = key.indexOf("-");
  return dash > 0 ? key.slice(0, dash) : key || undefined;
}

/** Whether a component (its key and description) is found by `search`. */
export function matchesSearch(
  key: string | undefined,
  description: ComponentDescription,
  search: RegistrySearch,
): boolean {
  if (search.type !== undefined && description.type !== search.type) return false;
  const app = componentApp({ key: key ?? description.key, props: description.props });
  if (search.app !== undefined && search.app !== "" && app !== search.app) return false;
  const words = (search.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = [key, description.key, description.name, description.description, app]
    .filter((s): s is string => typeof s === "string")
    .join("\n")
    .toLowerCase();
  return words.every((w) => text.includes(w));
}
