/**
 * `/sources/new`: the registry's sources (this workspace's published ones and every public one)
 * with a search; picking one opens its deploy form. Also deploys from a URL.
 */
import { useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { listAll } from "../api";
import { useLoad, useTitle } from "../hooks";
import type { Component } from "../types";
import { ErrorNote, Loading, SearchField, TextField } from "../widgets";

function deployLink(params: Record<string, string>): string {
  return `/sources?${new URLSearchParams({ action: "create", ...params }).toString()}`;
}

/** Browse and pick a registry component. */
export function NewSourcePage() {
  useTitle("New source");
  const { route } = useLocation();
  const registry = useLoad(() => listAll<Component>("/v1/components/registry"), []);
  const [query, setQuery] = useState("");
  const [url, setUrl] = useState("");
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (registry.data ?? [])
      .filter((c) => c.type === "source")
      .filter(
        (c) => !q || [c.name, c.key ?? "", c.description ?? ""].some((f) => f.toLowerCase().includes(q)),
      );
  }, [registry.data, query]);

  return (
    <section>
      <p class="crumbs">
        <a href="/sources">Sources</a>
      </p>
      <h1>New source</h1>
      <h2>From the registry</h2>
      <div class="toolbar">
        <SearchField
          id="registry-search"
          label="Search the registry"
          placeholder="Name, key or description"
          value={query}
          onChange={setQuery}
        />
      </div>
      <ErrorNote error={registry.error} label="Could not load the registry" />
      {registry.loading && !registry.data ? <Loading what="the registry" /> : null}
      {registry.data && shown.length === 0 ? (
        <p class="empty">
          {query
            ? `No source matches “${query}”.`
            : "The registry has no sources yet: publish one with pd publish."}
        </p>
      ) : null}
      <ul class="cards">
        {shown.map((c) => (
          <li key={c.id} class="card">
            <h3>{c.name}</h3>
            <p class="muted small-text">
              <code>{c.key}</code> · v{c.version} ·{" "}
              <span class={`badge ${c.visibility}`}>{c.visibility}</span>
            </p>
            {c.description ? <p>{c.description}</p> : null}
            <a class="button" href={deployLink({ key: c.key ?? "" })} aria-label={`Configure ${c.name}`}>
              Configure
            </a>
          </li>
        ))}
      </ul>
      <h2>From a URL</h2>
      <form
        class="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) route(deployLink({ url: url.trim() }));
        }}
      >
        <TextField
          id="component-url"
          label="Component code URL"
          class="grow"
          type="url"
          placeholder="https://example.com/my-source.mjs"
          value={url}
          onChange={setUrl}
        />
        <button type="submit">Load component</button>
      </form>
    </section>
  );
}
