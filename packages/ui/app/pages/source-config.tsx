/**
 * Configuration: the source's name, its code in an editor and its prop form. Update sends the
 * changes with `PUT /v1/sources/{id}`; the source keeps its `dc_` id and endpoint. Edited code can
 * be checked first ("Read props from code" saves it and shows the new code's props).
 */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api, seg } from "../api";
import { CodeEditor } from "../editor";
import { asApiError, useLoad } from "../hooks";
import { PropForm } from "../props/prop-form";
import { errorsByProp, initialValues, toSend, withoutChanged } from "../props/values";
import type { Component, Prop, Source } from "../types";
import { ErrorNote, Loading } from "../widgets";
import type { SourceContext } from "./source";

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
  if (!loaded.data) {
    return (
      <>
        <ErrorNote error={loaded.error} label="Could not load the configuration" />
        {loaded.loading ? <Loading what="the configuration" /> : null}
      </>
    );
  }
  return (
    <ConfigForm
      key={`${source.component_id}:${source.updated_at}`}
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
  const [props, setProps] = useState<Prop[]>(component.configurable_props);
  const [values, setValues] = useState(() =>
    initialValues(component.configurable_props, source.configured_props),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const saved = new Set(
    props.filter((p) => p.secret && source.configured_props[p.name] !== undefined).map((p) => p.name),
  );
  const codeChanged = text !== target.code;
  useEffect(() => setErrors({}), [target.id]);

  async function readProps() {
    setBusy(true);
    setError(undefined);
    try {
      const saved = await api<Component>("POST", "/v1/components", {
        component_code: text,
        filename: code.filename,
      });
      setTarget({ id: saved.id, code: text });
      setProps(saved.configurable_props);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      class="config"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const updated = await api<Source>("PUT", `/v1/sources/${seg(source.id)}`, {
            ...(name.trim() && name !== source.name ? { name: name.trim() } : {}),
            ...(codeChanged
              ? { component_code: text, filename: code.filename }
              : target.id !== component.id
                ? { component_id: target.id }
                : {}),
            configured_props: toSend(props, values),
          });
          setErrors({});
          onUpdated(updated);
        } catch (err) {
          const { byProp, other } = errorsByProp(err, props);
          setErrors(byProp);
          setError(other);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="config-name">Source name</label>
        <input id="config-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
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
            <button type="button" class="small" disabled={busy || !codeChanged} onClick={readProps}>
              Read props from code
            </button>
          </div>
        </div>
        <div>
          <h2>Props</h2>
          <PropForm
            key={target.id}
            componentRef={target.id}
            props={props}
            values={values}
            onValues={(next) => {
              setErrors((e) => withoutChanged(e, values, next));
              setValues(next);
            }}
            onProps={setProps}
            errors={errors}
            savedSecrets={saved}
            endpointUrl={source.endpoint_url}
          />
        </div>
      </div>
      <ErrorNote error={error} label="Could not update" />
      {Object.keys(errors).length > 0 && !error ? (
        <p class="error" role="alert">
          Some props need attention (see above).
        </p>
      ) : null}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Updating…" : "Update"}
        </button>
      </div>
    </form>
  );
}
