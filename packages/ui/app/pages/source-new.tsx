/**
 * `/sources/new`: the registry's sources (this workspace's published ones and every public one),
 * searched on the server and grouped by app, with "Import from npm"; picking one (or one of its
 * versions) opens its deploy form. Also deploys from a URL.
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { useTitle } from "../hooks";
import { RegistryBrowser } from "../registry-browser";
import { TextField } from "../widgets";

function deployLink(params: Record<string, string>): string {
  return `/sources?${new URLSearchParams({ action: "create", ...params }).toString()}`;
}

/** Browse and pick a registry component. */
export function NewSourcePage() {
  useTitle("New source");
  const { route } = useLocation();
  const [url, setUrl] = useState("");

  return (
    <section>
      <p class="crumbs">
        <a href="/sources">Sources</a>
      </p>
      <h1>New source</h1>
      <h2>From the registry</h2>
      <RegistryBrowser
        type="source"
        idPrefix="registry"
        action={(c, version) => (
          <a
            class="button"
            href={deployLink({ key: version ? `${c.key}@${version}` : (c.key ?? "") })}
            aria-label={`Configure ${c.name}`}
          >
            Configure
          </a>
        )}
      />
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
