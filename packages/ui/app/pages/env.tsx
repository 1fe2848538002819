/**
 * `/settings/env`: the workspace's environment variables (`/v1/env`), what workflow expressions
 * read as `{{process.env.NAME}}`. Names are listed; values are write-only (encrypted on the
 * server, never returned): set a new one, replace one, delete one.
 */
import { useState } from "preact/hooks";
import { type ApiError, api, listAll, seg } from "../api";
import { asApiError, useLoad, useNotice, useTitle } from "../hooks";
import { ConfirmDialog, DeleteCell, ErrorNote, ListTable, Loading, Notice, Time } from "../widgets";

interface EnvVar {
  name: string;
  created_at: number;
  updated_at: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment variables page. */
export function EnvPage() {
  useTitle("Environment variables");
  const list = useLoad(() => listAll<EnvVar>("/v1/env"), []);
  const [notice, notify] = useNotice();
  const [toDelete, setToDelete] = useState<EnvVar | undefined>();
  const [replacing, setReplacing] = useState<string | undefined>();
  return (
    <section>
      <h1>Environment variables</h1>
      <p class="muted">
        Workflow steps read them in prop values as <code>{"{{process.env.NAME}}"}</code>. Values are encrypted
        and never shown again: to change one, set it anew.
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the environment variables" />
      {list.loading && !list.data ? <Loading what="environment variables" /> : null}
      {list.data && list.data.length === 0 ? <p class="empty">No environment variables yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="Environment variables" columns={["Name", "Value", "Updated"]}>
          {list.data.map((v) => (
            <tr key={v.name}>
              <th scope="row" data-label="Name">
                <code>{v.name}</code>
              </th>
              <td data-label="Value">
                {replacing === v.name ? (
                  <EnvForm
                    fixedName={v.name}
                    onDone={async (message) => {
                      setReplacing(undefined);
                      if (message) notify(message);
                      await list.reload();
                    }}
                  />
                ) : (
                  <>
                    <span class="muted">hidden</span>{" "}
                    <button
                      type="button"
                      class="small"
                      aria-label={`Replace the value of ${v.name}`}
                      onClick={() => setReplacing(v.name)}
                    >
                      Replace
                    </button>
                  </>
                )}
              </td>
              <td data-label="Updated">
                <Time ms={v.updated_at * 1000} />
              </td>
              <DeleteCell name={v.name} onClick={() => setToDelete(v)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <h2>Set a variable</h2>
      <EnvForm
        onDone={async (message) => {
          if (message) notify(message);
          await list.reload();
        }}
      />
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? "variable"}?`}
        confirmLabel="Delete variable"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const v = toDelete as EnvVar;
          await api("DELETE", `/v1/env/${seg(v.name)}`);
          notify(`Deleted ${v.name}.`);
          await list.reload();
        }}
      >
        <p>Workflow expressions that read it get nothing (undefined) from then on.</p>
      </ConfirmDialog>
    </section>
  );
}

/** Sets a variable: a name (unless replacing one) and a value, sent with PUT /v1/env/{name}. */
function EnvForm({ fixedName, onDone }: { fixedName?: string; onDone: (message?: string) => Promise<void> }) {
  const [name, setName] = useState(fixedName ?? "");
  const [value, setValue] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const idp = fixedName ? `env-${fixedName}` : "env-new";
  const nameError =
    name !== "" && !NAME.test(name) ? "Letters, digits and underscores; not starting with a digit" : "";
  return (
    <form
      class="stack env-form"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        if (!name || nameError) return;
        setBusy(true);
        setError(undefined);
        try {
          await api("PUT", `/v1/env/${seg(name)}`, { value });
          setValue("");
          if (!fixedName) setName("");
          await onDone(fixedName ? `Replaced the value of ${name}.` : `Set ${name}.`);
        } catch (err) {
          setError(asApiError(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      {fixedName ? null : (
        <div class="field">
          <label for={`${idp}-name`}>Name</label>
          <input
            id={`${idp}-name`}
            value={name}
            autocomplete="off"
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? `${idp}-name-err` : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          {nameError ? (
            <p id={`${idp}-name-err`} class="error field-error" role="alert">
              {nameError}
            </p>
          ) : null}
        </div>
      )}
      <div class="field">
        <label for={`${idp}-value`}>{fixedName ? `New value of ${fixedName}` : "Value"}</label>
        <input
          id={`${idp}-value`}
          type="password"
          autocomplete="new-password"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </div>
      <ErrorNote error={error} label="Not saved" />
      <div class="row">
        <button type="submit" class="primary" disabled={busy || !name || nameError !== ""}>
          {fixedName ? "Save value" : "Set variable"}
        </button>
        {fixedName ? (
          <button type="button" onClick={() => void onDone()}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
