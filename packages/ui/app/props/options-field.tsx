/**
 * Async options (`options()` methods, also through `propDefinition`): loaded from
 * `POST /v1/components/{id}/props/{prop}/options` with the values configured so far, page by page
 * ("Load more" passes `page` and the previous `context`), and searched with `query` for `useQuery`.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, seg } from "../api";
import { asApiError } from "../hooks";
import { type FieldProps, MultiChoiceField, SelectField } from "./fields";
import { type Option, toOptions } from "./values";

interface OptionsPage {
  options: unknown[];
  context?: unknown;
}

/** A select (or checkboxes for arrays) over options the component computes. */
export function AsyncOptionsField(
  props: FieldProps & { componentRef: string; configured: Record<string, unknown> },
) {
  const { prop, id, componentRef, configured } = props;
  const [options, setOptions] = useState<Option[]>([]);
  const [nextPage, setNextPage] = useState<{ page: number; context: unknown } | undefined>();
  const [query, setQuery] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useRef(0);
  // Other props' values matter to options(): reload when they change (not when this one does).
  const { [prop.name]: _own, ...others } = configured;
  const othersKey = JSON.stringify(others);

  async function load(pageNo: number, context: unknown, q: string, append: boolean) {
    const mine = ++run.current;
    setBusy(true);
    try {
      const res = await api<OptionsPage>(
        "POST",
        `/v1/components/${seg(componentRef)}/props/${seg(prop.name)}/options`,
        {
          configured_props: configured,
          page: pageNo,
          ...(context !== undefined ? { prevContext: context } : {}),
          ...(prop.useQuery && q ? { query: q } : {}),
        },
      );
      if (mine !== run.current) return;
      const got = toOptions(res.options);
      setOptions((prev) => (append ? [...prev, ...got] : got));
      setNextPage(got.length > 0 ? { page: pageNo + 1, context: res.context } : undefined);
      setError(undefined);
    } catch (e) {
      if (mine === run.current) setError(asApiError(e).message);
    } finally {
      if (mine === run.current) setBusy(false);
    }
  }

  useEffect(() => {
    const t = setTimeout(() => void load(0, undefined, query, false), query ? 300 : 0);
    return () => clearTimeout(t);
  }, [componentRef, prop.name, othersKey, query]);

  const search = prop.useQuery ? (
    <div class="field inline">
      <label for={`${id}-search`}>Search {prop.label ?? prop.name}</label>
      <input
        id={`${id}-search`}
        type="search"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
    </div>
  ) : null;
  const more = (
    <div class="row">
      {nextPage ? (
        <button
          type="button"
          class="small"
          disabled={busy}
          onClick={() => load(nextPage.page, nextPage.context, query, true)}
        >
          Load more options
        </button>
      ) : null}
      {busy ? (
        <span class="muted" role="status">
          Loading options…
        </span>
      ) : null}
    </div>
  );
  const fieldError = props.error ?? error;
  if (prop.type.endsWith("[]")) {
    return (
      <MultiChoiceField {...props} error={fieldError} options={options} footer={more}>
        {search}
      </MultiChoiceField>
    );
  }
  return (
    <>
      <SelectField {...props} error={fieldError} options={options}>
        {search}
      </SelectField>
      {more}
    </>
  );
}
