/**
 * The registry as a catalogue: the workspace's and the public components of one type, searched on
 * the server (`GET /v1/components/registry?q=&type=`, every version), grouped by app, each with its
 * versions; and "Import from npm", which fills it from an npm package (`POST
 * /v1/components/registry/import`, as `pd registry import` does). Used by `/sources/new` and the
 * workflow editor's action picker.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { type ApiError, api, listAll } from "./api";
import { asApiError, useLoad } from "./hooks";
import { Markdown } from "./markdown";
import type { Component } from "./types";
import { ErrorNote, Loading, SearchField, TextField } from "./widgets";

/** A registry entry as the API lists it. */
export interface RegistryComponent extends Component {
  app?: string | null;
  own?: boolean;
}

interface Imported {
  name: string;
  version: string;
  components: {
    file: string;
    status: string;
    key: string | null;
    error: { code: string; message: string } | null;
  }[];
}

/** Compares `1.10.0` and `1.9.0` as versions (newest first when sorting). */
function newerFirst(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pb[i] ?? 0) - (pa[i] ?? 0);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}

/** "3 actions", "1 source matches “rss”". */
function countText(n: number, type: string, query: string): string {
  const what = n === 1 ? `1 ${type}` : `${n} ${type}s`;
  return query ? `${what} ${n === 1 ? "matches" : "match"} “${query}”` : what;
}

/** The catalogue; `action` renders each card's button for the chosen version. */
export function RegistryBrowser({
  type,
  idPrefix,
  action,
}: {
  type: "source" | "action";
  idPrefix: string;
  action: (component: RegistryComponent, version: string) => ComponentChildren;
}) {
  const [query, setQuery] = useState("");
  const [asked, setAsked] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setAsked(query.trim()), 250);
    return () => clearTimeout(t);
  }, [query]);
  const found = useLoad(
    () =>
      listAll<RegistryComponent>("/v1/components/registry", {
        type,
        all_versions: true,
        ...(asked ? { q: asked } : {}),
      }),
    [type, asked],
  );
  // Newest version per key, with its versions; grouped by app.
  const groups = useMemo(() => {
    const byKey = new Map<string, RegistryComponent[]>();
    for (const c of found.data ?? []) {
      const key = c.key ?? c.id;
      byKey.set(key, [...(byKey.get(key) ?? []), c]);
    }
    const byApp = new Map<string, RegistryComponent[][]>();
    for (const versions of byKey.values()) {
      versions.sort((a, b) => newerFirst(a.version, b.version));
      const app = versions[0]?.app ?? "other";
      byApp.set(app, [...(byApp.get(app) ?? []), versions]);
    }
    return [...byApp.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [found.data]);

  return (
    <div class="registry">
      <div class="toolbar">
        <SearchField
          id={`${idPrefix}-search`}
          label={type === "source" ? "Search the registry" : "Search actions"}
          placeholder="App, name, key or description"
          value={query}
          onChange={setQuery}
        />
      </div>
      <ErrorNote error={found.error} label="Could not search the registry" />
      {found.loading && !found.data ? <Loading what="the registry" /> : null}
      <p class="muted small-text" role="status">
        {found.data
          ? countText(
              groups.reduce((n, [, keys]) => n + keys.length, 0),
              type,
              asked,
            )
          : ""}
      </p>
      {groups.map(([app, keys]) => (
        <section key={app} class="app-group" aria-labelledby={`${idPrefix}-app-${app}`}>
          <h3 id={`${idPrefix}-app-${app}`} class="app-name">
            {app}
          </h3>
          <ul class="cards">
            {keys.map((versions) => (
              <RegistryCard key={versions[0]?.key} versions={versions} idPrefix={idPrefix} action={action} />
            ))}
          </ul>
        </section>
      ))}
      <ImportFromNpm idPrefix={idPrefix} onImported={() => void found.reload()} />
    </div>
  );
}

function RegistryCard({
  versions,
  idPrefix,
  action,
}: {
  versions: RegistryComponent[];
  idPrefix: string;
  action: (component: RegistryComponent, version: string) => ComponentChildren;
}) {
  const [chosen, setChosen] = useState(0);
  const c = versions[chosen] ?? (versions[0] as RegistryComponent);
  const selectId = `${idPrefix}-v-${c.key}`;
  return (
    <li class="card">
      <h4>{c.name}</h4>
      <p class="muted small-text">
        <code>{c.key}</code> ·{" "}
        <span class={`badge ${c.visibility}`}>{c.own ? "this workspace" : "public"}</span>
      </p>
      {versions.length > 1 ? (
        <div class="field inline">
          <label for={selectId}>Version</label>
          <select
            id={selectId}
            value={String(chosen)}
            onChange={(e) => setChosen(Number(e.currentTarget.value))}
          >
            {versions.map((v, i) => (
              <option key={v.id} value={String(i)}>
                {v.version}
                {i === 0 ? " (newest)" : ""}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <p class="muted small-text">v{c.version}</p>
      )}
      {c.description ? (
        <div class="markdown small-text">
          <Markdown text={c.description} />
        </div>
      ) : null}
      {action(c, chosen === 0 ? "" : c.version)}
    </li>
  );
}

/** "Import from npm": a package name and a visibility; shows what became of each file. */
function ImportFromNpm({ idPrefix, onImported }: { idPrefix: string; onImported: () => void }) {
  const [spec, setSpec] = useState("");
  const [visibility, setVisibility] = useState<"private" | "public">("private");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [result, setResult] = useState<Imported | undefined>();
  return (
    <details class="import-npm">
      <summary>Import from npm</summary>
      <p class="muted small-text">
        The components of an npm package in Pipedream's layout, such as <code>@pipedream/slack</code>, found
        by the server (its node_modules, its package cache, then the npm registry), as{" "}
        <code>pd registry import</code> does.
      </p>
      <form
        class="row wrap"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          setResult(undefined);
          try {
            setResult(
              await api<Imported>("POST", "/v1/components/registry/import", {
                package: spec.trim(),
                visibility,
              }),
            );
            onImported();
          } catch (err) {
            setError(asApiError(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <TextField
          id={`${idPrefix}-npm`}
          label="npm package"
          placeholder="@pipedream/slack"
          value={spec}
          onChange={setSpec}
        />
        <div class="field">
          <label for={`${idPrefix}-npm-vis`}>Visibility</label>
          <select
            id={`${idPrefix}-npm-vis`}
            value={visibility}
            onChange={(e) => setVisibility(e.currentTarget.value as "private" | "public")}
          >
            <option value="private">this workspace</option>
            <option value="public">public (every workspace)</option>
          </select>
        </div>
        <button type="submit" disabled={busy || spec.trim() === ""}>
          {busy ? "Importing…" : "Import"}
        </button>
      </form>
      <ErrorNote error={error} label="Not imported" />
      {result ? (
        <div role="status">
          <p>
            {result.name}@{result.version}: {result.components.filter((c) => c.status === "published").length}{" "}
            published, {result.components.filter((c) => c.status === "exists").length} already there,{" "}
            {result.components.filter((c) => c.status === "failed").length} failed.
          </p>
          <ul class="small-text">
            {result.components.map((c) => (
              <li key={c.file}>
                <code>{c.key ?? c.file}</code>: {c.status}
                {c.error ? ` (${c.error.code}: ${c.error.message})` : ""}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </details>
  );
}
