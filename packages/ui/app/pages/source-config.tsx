/**
 * Configuration: the source's name, its code in an editor and its prop form. Update sends the
 * changes with `PUT /v1/sources/{id}`; the source keeps its `dc_` id and endpoint. Edited code can
 * be checked first ("Read props from code" saves it and shows the new code's props).
 */
import { useState } from "preact/hooks";
import { api, seg } from "../api";
import { CodeEditor } from "../editor";
import { useLoad } from "../hooks";
import { SubmitFooter, usePropFormState } from "../props/form-state";
import { PropForm } from "../props/prop-form";
import { initialValues } from "../props/values";
import type { Component, Source } from "../types";
import { ErrorNote, Loading, TextField } from "../widgets";
import type { SourceContext } from "./source-context";

interface Code {
  code: string;
  filename: string;
}

/** The Configuration tab. */
export function ConfigurationTab({ ctx, notify }: { ctx: SourceContext; notify: (m: string) => void }) {
  const { source } = ctx;
  const loaded = useLoad(async () => {
    const [component, code] = await Promise.all([
      ctx.component?.id === source.component_id
        ? ctx.component
        : api<Component>("GET", `/v1/components/${seg(source.component_id)}`),
      api<Code>("GET", `/v1/components/${seg(source.component_id)}/code`),
    ]);
    return { component, code };
  }, [source.component_id]);
  // After an update that changed the code, wait for the new component rather than show the old.
  if (!loaded.data || loaded.data.component.id !== source.component_id) {
    return (
      <>
        <ErrorNote error={loaded.error} label="Could not load the configuration" />
        {loaded.loading ? <Loading what="the configuration" /> : null}
      </>
    );
  }
  return (
    <ConfigForm
      key={`${loaded.data.component.id}:${source.updated_at}`}
      source={source}
      component={loaded.data.component}
      code={loaded.data.code}
      onUpdated={(s) => {
        ctx.onSource(s);
        notify(`Updated. The source keeps its id ${s.id}.`);
      }}
    />
  );
}

function ConfigForm({
  source,
  component,
  code,
  onUpdated,
}: {
  source: Source;
  component: Component;
  code: Code;
  onUpdated: (s: Source) => void;
}) {
  const [name, setName] = useState(source.name);
  const [text, setText] = useState(code.code);
  // The component the form describes: the deployed one, or edited code saved by "Read props".
  const [target, setTarget] = useState<{ id: string; code: string }>({ id: component.id, code: code.code });
  const state = usePropFormState(
    component.configurable_props,
    initialValues(component.configurable_props, source.configured_props),
  );
  const saved = new Set(
    state.props.filter((p) => p.secret && source.configured_props[p.name] !== undefined).map((p) => p.name),
  );
  const codeChanged = text !== target.code;

  // Saves the edited code and shows its props (an invalid component shows why).
  const readProps = () =>
    state.submit(async () => {
      const next = await api<Component>("POST", "/v1/components", {
        component_code: text,
        filename: code.filename,
      });
      setTarget({ id: next.id, code: text });
      state.setProps(next.configurable_props);
    });

  return (
    <form
      class="config"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void state.submit(async (configured_props) => {
          const updated = await api<Source>("PUT", `/v1/sources/${seg(source.id)}`, {
            ...(name.trim() && name !== source.name ? { name: name.trim() } : {}),
            ...(codeChanged
              ? { component_code: text, filename: code.filename }
              : target.id !== component.id
                ? { component_id: target.id }
                : {}),
            configured_props,
          });
          onUpdated(updated);
        });
      }}
    >
      <TextField id="config-name" label="Source name" required value={name} onChange={setName} />
      <div class="config-grid">
        <div>
          <h2 id="code-title">Code</h2>
          <p class="muted small-text">
            <code>{code.filename}</code>
            {codeChanged ? " · edited" : ""}
          </p>
          <CodeEditor
            value={code.code}
            onChange={setText}
            label={`Code of ${source.name}`}
            typescript={code.filename.endsWith(".ts")}
          />
          <div class="row">
            <button type="button" class="small" disabled={state.busy || !codeChanged} onClick={readProps}>
              Read props from code
            </button>
          </div>
        </div>
        <div>
          <h2>Props</h2>
          <PropForm
            key={target.id}
            componentRef={target.id}
            {...state.form}
            savedSecrets={saved}
            endpointUrl={source.endpoint_url}
          />
        </div>
      </div>
      <SubmitFooter state={state} label="Update" busyLabel="Updating…" errorLabel="Could not update" />
    </form>
  );
}
