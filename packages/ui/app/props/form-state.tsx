/**
 * The state a page keeps around a {@link PropForm} (deploy and Configuration): the props (which
 * reloads replace), the values, the server's messages by prop, and the submit button's footer.
 */
import { useState } from "preact/hooks";
import type { ApiError } from "../api";
import type { Prop } from "../types";
import { ErrorNote } from "../widgets";
import type { PropFormProps } from "./prop-form";
import { errorsByProp, toSend, withoutChanged } from "./values";

/** A prop form's state and what to do with a submit. */
export function usePropFormState(initialProps: Prop[], initialValues: Record<string, unknown> = {}) {
  const [props, setProps] = useState(initialProps);
  const [values, setValues] = useState(initialValues);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);

  /** Runs a submit: busy while it runs; a refusal's messages go next to their props. */
  async function submit(send: (configured: Record<string, unknown>) => Promise<void>): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await send(toSend(props, values));
      setErrors({});
    } catch (err) {
      const { byProp, other } = errorsByProp(err, props);
      setErrors(byProp);
      setError(other);
    } finally {
      setBusy(false);
    }
  }

  /** What {@link PropForm} takes besides the component and the secrets. */
  const form: Pick<PropFormProps, "props" | "values" | "onValues" | "onProps" | "errors"> = {
    props,
    values,
    errors,
    onProps: setProps,
    onValues(next) {
      // A prop being edited loses its old message.
      setErrors((e) => withoutChanged(e, values, next));
      setValues(next);
    },
  };
  return { props, setProps, setErrors, error, setError, busy, submit, form };
}

/** The errors summary and the submit button of a prop form. */
export function SubmitFooter({
  state,
  label,
  busyLabel,
  errorLabel,
}: {
  state: { error: ApiError | undefined; busy: boolean; form: { errors: Record<string, string> } };
  label: string;
  busyLabel: string;
  errorLabel: string;
}) {
  return (
    <>
      <ErrorNote error={state.error} label={errorLabel} />
      {Object.keys(state.form.errors).length > 0 && !state.error ? (
        <p class="error" role="alert">
          Some props need attention (see above).
        </p>
      ) : null}
      <div class="row">
        <button type="submit" class="primary" disabled={state.busy}>
          {state.busy ? busyLabel : label}
        </button>
      </div>
    </>
  );
}
