/**
 * The deploy form: the component named by a registry key (`/sources?action=create&key=...`) or
 * fetched from a URL (`&url=...`, saved first), a name, its generated prop form, then Deploy.
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, seg } from "../api";
import { useLoad, useTitle } from "../hooks";
import { SubmitFooter, usePropFormState } from "../props/form-state";
import { PropForm } from "../props/prop-form";
import type { Component, Source } from "../types";
import { ErrorNote, Loading, TextField } from "../widgets";

async function loadComponent(key?: string, url?: string): Promise<{ component: Component; ref: string }> {
  if (key) {
    const component = await api<Component>("GET", `/v1/components/registry/${seg(key)}`);
    return { component, ref: `${component.key ?? key}@${component.version}` };
  }
  if (url) {
    const component = await api<Component>("POST", "/v1/components", { component_url: url });
    return { component, ref: component.id };
  }
  throw new Error("Give a registry key (key=...) or a URL (url=...) to deploy.");
}

/** The deploy form of a deploy link. */
export function CreateSource({
  componentKey,
  componentUrl,
}: {
  componentKey?: string;
  componentUrl?: string;
}) {
  const loaded = useLoad(() => loadComponent(componentKey, componentUrl), [componentKey, componentUrl]);
  const c = loaded.data?.component;
  useTitle(c ? `Deploy ${c.name}` : "Deploy a source");
  return (
    <section>
      <p class="crumbs">
        <a href="/sources">Sources</a> / <a href="/sources/new">New source</a>
      </p>
      <h1>{c ? `Deploy ${c.name}` : "Deploy a source"}</h1>
      <p class="muted">
        {componentKey ? (
          <>
            Registry key <code>{componentKey}</code>
          </>
        ) : componentUrl ? (
          <>
            From <code>{componentUrl}</code>
          </>
        ) : null}
      </p>
      <ErrorNote error={loaded.error} label="Could not load the component" />
      {loaded.loading && !loaded.data ? <Loading what="the component" /> : null}
      {loaded.data ? (
        <DeployForm
          key={loaded.data.ref}
          component={loaded.data.component}
          componentRef={loaded.data.ref}
          deployWith={
            componentKey ? { component_key: loaded.data.ref } : { component_id: loaded.data.component.id }
          }
        />
      ) : null}
    </section>
  );
}

function DeployForm({
  component,
  componentRef,
  deployWith,
}: {
  component: Component;
  componentRef: string;
  deployWith: Record<string, string>;
}) {
  const { route } = useLocation();
  const [name, setName] = useState(component.name);
  const state = usePropFormState(component.configurable_props);

  return (
    <form
      class="card"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void state.submit(async (configured_props) => {
          const source = await api<Source>("POST", "/v1/sources", {
            ...deployWith,
            name: name.trim() || component.name,
            configured_props,
          });
          route(`/sources/${source.id}`);
        });
      }}
    >
      {component.description ? <p>{component.description}</p> : null}
      <p class="muted small-text">
        {component.key ? <code>{component.key}</code> : null} version {component.version}
        {component.visibility ? ` · ${component.visibility}` : ""}
      </p>
      <TextField id="source-name" label="Source name" required value={name} onChange={setName} />
      <h2>Configure</h2>
      <PropForm componentRef={componentRef} {...state.form} />
      <SubmitFooter state={state} label="Deploy" busyLabel="Deploying…" errorLabel="Could not deploy" />
    </form>
  );
}
