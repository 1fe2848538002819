/**
 * A form generated from a component's `configurable_props`: one labelled input per prop, by type.
 * A change to a prop with `reloadProps` (and "Refresh fields") asks the server for the props after
 * `additionalProps()` (`POST /v1/components/{id}/reload_props`); a `ConfigurationError` it throws
 * is shown next to the prop that triggered it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, seg } from "../api";
import { asApiError } from "../hooks";
import type { Prop } from "../types";
import { AccountField } from "./account-field";
import {
  ArrayField,
  BooleanField,
  type FieldProps,
  IntegerField,
  JsonField,
  MultiChoiceField,
  SelectField,
  StringField,
  staticOptions,
  TimerField,
} from "./fields";
import { AsyncOptionsField } from "./options-field";
import { labelOf, takesInput, toSend } from "./values";

/** Options of {@link PropForm}. */
export interface PropFormProps {
  /** The component for options and reload calls: an `sc_` id or `key@version`. */
  componentRef: string;
  props: Prop[];
  values: Record<string, unknown>;
  onValues: (values: Record<string, unknown>) => void;
  onProps: (props: Prop[]) => void;
  /** Messages by prop name (from the last deploy or update). */
  errors: Record<string, string>;
  /** Secret props that have a saved value (a deployed source's Configuration). */
  savedSecrets?: Set<string>;
  /** The source's HTTP endpoint, once deployed. */
  endpointUrl?: string | null;
  /** The prefix of the inputs' ids (default `prop`): several forms on one page need their own. */
  idPrefix?: string;
  /**
   * Wraps each input prop's field (a workflow step's: a variable picker beside it, a text field
   * while its value is a `{{ }}` expression). Gets the prop's value, its setter and error.
   */
  wrapField?: (prop: Prop, field: WrappedField, input: ComponentChildren) => ComponentChildren;
}

/** What {@link PropFormProps.wrapField} gets of a field. */
export interface WrappedField {
  id: string;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}

const REFRESH = "__refresh";

/** The generated prop form (without a `<form>` element: the page owns the submit button). */
export function PropForm(p: PropFormProps) {
  const [reloadError, setReloadError] = useState<{ prop: string; message: string } | undefined>();
  const [reloading, setReloading] = useState(false);
  const latest = useRef(p);
  latest.current = p;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const hasReload = p.props.some((x) => x.reloadProps);

  async function reload(values: Record<string, unknown>, trigger: string) {
    setReloading(true);
    try {
      const res = await api<{ configurable_props: Prop[] }>(
        "POST",
        `/v1/components/${seg(latest.current.componentRef)}/reload_props`,
        { configured_props: toSend(latest.current.props, values), previous_props: latest.current.props },
      );
      latest.current.onProps(res.configurable_props);
      setReloadError(undefined);
    } catch (e) {
      setReloadError({ prop: trigger, message: asApiError(e).message });
    } finally {
      setReloading(false);
    }
  }

  // Once at the start: props additionalProps() adds for the values given (a deployed source's).
  useEffect(() => {
    if (hasReload) void reload(p.values, REFRESH);
  }, [p.componentRef]);
  useEffect(() => () => clearTimeout(timer.current), []);

  function change(prop: Prop, value: unknown) {
    const next = { ...latest.current.values };
    if (value === undefined) delete next[prop.name];
    else next[prop.name] = value;
    p.onValues(next);
    if (prop.reloadProps) {
      clearTimeout(timer.current);
      timer.current = setTimeout(
        () => void reload(next, prop.name),
        prop.type === "string" || prop.type === "integer" ? 400 : 0,
      );
    }
  }

  return (
    <div class="prop-form">
      {p.props.length === 0 ? <p class="muted">This component has no props to configure.</p> : null}
      {p.props.map((prop) => {
        const error = reloadError?.prop === prop.name ? reloadError.message : p.errors[prop.name];
        const onChange = (v: unknown) => change(prop, v);
        const input = <PropInput key={prop.name} prop={prop} form={p} error={error} onChange={onChange} />;
        if (!p.wrapField || !takesInput(prop)) return input;
        const field = {
          id: `${p.idPrefix ?? "prop"}-${prop.name}`,
          value: p.values[prop.name],
          error,
          onChange,
        };
        return <div key={prop.name}>{p.wrapField(prop, field, input)}</div>;
      })}
      {hasReload ? (
        <div class="row">
          <button type="button" class="small" disabled={reloading} onClick={() => reload(p.values, REFRESH)}>
            Refresh fields
          </button>
          {reloading ? (
            <span class="muted" role="status">
              Refreshing fields…
            </span>
          ) : null}
        </div>
      ) : null}
      {reloadError?.prop === REFRESH ? (
        <p class="error" role="alert">
          {reloadError.message}
        </p>
      ) : null}
    </div>
  );
}

function PropInput({
  prop,
  form,
  error,
  onChange,
}: {
  prop: Prop;
  form: PropFormProps;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const id = `${form.idPrefix ?? "prop"}-${prop.name}`;
  if (prop.type === "alert") {
    return (
      <div class={`alert alert-${prop.alertType ?? "info"}`} role="note">
        {prop.content ?? prop.description ?? ""}
      </div>
    );
  }
  if (prop.type === "$.interface.http") {
    return (
      <div class="field">
        <p class="label-like">{labelOf(prop)}</p>
        <p class="hint">
          {form.endpointUrl ? (
            <>
              HTTP endpoint: <code>{form.endpointUrl}</code>
            </>
          ) : (
            "An HTTP endpoint is created when the source is deployed."
          )}
        </p>
      </div>
    );
  }
  if (!takesInput(prop)) return null;
  const field: FieldProps = {
    prop,
    id,
    value: form.values[prop.name],
    onChange,
    error,
    secretSaved: form.savedSecrets?.has(prop.name) ?? false,
  };
  const array = prop.type.endsWith("[]");
  if (prop.type === "app") return <AccountField {...field} />;
  if (prop.type === "$.interface.timer") return <TimerField {...field} />;
  if (prop.dynamicOptions) {
    return (
      <AsyncOptionsField
        {...field}
        componentRef={form.componentRef}
        configured={toSend(form.props, form.values)}
      />
    );
  }
  const options = staticOptions(prop);
  if (options)
    return array ? (
      <MultiChoiceField {...field} options={options} />
    ) : (
      <SelectField {...field} options={options} />
    );
  if (array) return <ArrayField {...field} />;
  if (prop.type === "integer") return <IntegerField {...field} />;
  if (prop.type === "boolean") return <BooleanField {...field} />;
  // Types outside SPEC's table say what they take: http_request an object, sql any value.
  const takes = prop.valueType ?? prop.type;
  if (takes === "object" || takes === "any") return <JsonField {...field} />;
  return <StringField {...field} />;
}
