/**
 * `/data-stores`: the workspace's data stores (what `data_store` props and the data-store actions
 * use, `/v1/data_stores`): create one, browse its records, add or edit a record's value as JSON
 * (with an optional time to live), delete a record or the whole store. `?store=<id>` opens one.
 */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ApiError, api, listAll, seg } from "../api";
import { asApiError, useLoad, useNotice, useTitle } from "../hooks";
import {
  ConfirmDialog,
  DeleteCell,
  ErrorNote,
  ListTable,
  Loading,
  Notice,
  TextField,
  Time,
} from "../widgets";

interface DataStore {
  id: string;
  name: string;
  record_count: number;
  created_at: number;
  updated_at: number;
}

interface StoreRecord {
  key: string;
  value: unknown;
  expires_at: number | null;
  updated_at: number;
}

/** The data stores page. */
export function DataStoresPage() {
  const { query, route } = useLocation();
  const open = query.store;
  useTitle("Data stores");
  const stores = useLoad(() => listAll<DataStore>("/v1/data_stores"), []);
  const [notice, notify] = useNotice();
  const [name, setName] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  const [toDelete, setToDelete] = useState<DataStore | undefined>();
  const current = stores.data?.find((s) => s.id === open || s.name === open);
  return (
    <section>
      <h1>Data stores</h1>
      <p class="muted">
        Key-value stores that components read and write through <code>data_store</code> props. Values are
        JSON.
      </p>
      <Notice text={notice} />
      <ErrorNote error={stores.error} label="Could not load the data stores" />
      {stores.loading && !stores.data ? <Loading what="data stores" /> : null}
      {stores.data && stores.data.length === 0 ? <p class="empty">No data stores yet.</p> : null}
      {stores.data && stores.data.length > 0 ? (
        <ListTable caption="Data stores" columns={["Name", "Records", "Updated"]}>
          {stores.data.map((s) => (
            <tr key={s.id} aria-current={s.id === current?.id ? "true" : undefined}>
              <th scope="row" data-label="Name">
                <a href={`/data-stores?store=${seg(s.id)}`}>{s.name}</a>
                <div class="muted small-text mono">{s.id}</div>
              </th>
              <td data-label="Records">{s.record_count}</td>
              <td data-label="Updated">
                <Time ms={s.updated_at * 1000} />
              </td>
              <DeleteCell name={s.name} onClick={() => setToDelete(s)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <form
        class="row wrap"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const created = await api<DataStore>("POST", "/v1/data_stores", { name });
            setName("");
            notify(`Created ${created.name}.`);
            await stores.reload();
            route(`/data-stores?store=${seg(created.id)}`);
          } catch (err) {
            setError(asApiError(err));
          }
        }}
      >
        <TextField id="new-store-name" label="New data store" value={name} onChange={setName} />
        <button type="submit" disabled={name.trim() === ""}>
          Create data store
        </button>
      </form>
      <ErrorNote error={error} label="Not created" />
      {current ? (
        <Records
          key={current.id}
          store={current}
          onChanged={async (message) => {
            notify(message);
            await stores.reload();
          }}
        />
      ) : null}
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? "data store"}?`}
        confirmLabel="Delete data store"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const s = toDelete as DataStore;
          await api("DELETE", `/v1/data_stores/${seg(s.id)}`);
          notify(`Deleted ${s.name} and its records.`);
          if (s.id === current?.id) route("/data-stores");
          await stores.reload();
        }}
      >
        <p>Its {toDelete?.record_count ?? 0} records are deleted with it.</p>
      </ConfirmDialog>
    </section>
  );
}

/** A store's records: browse, edit a value as JSON, delete. */
function Records({ store, onChanged }: { store: DataStore; onChanged: (message: string) => Promise<void> }) {
  const records = useLoad(() => listAll<StoreRecord>(`/v1/data_stores/${seg(store.id)}/records`), [store.id]);
  const [editing, setEditing] = useState<StoreRecord | { key: ""; value: undefined } | undefined>();
  const [toDelete, setToDelete] = useState<StoreRecord | undefined>();
  const changed = async (message: string) => {
    setEditing(undefined);
    await records.reload();
    await onChanged(message);
  };
  return (
    <section aria-labelledby="records-title" class="panel">
      <h2 id="records-title">Records of {store.name}</h2>
      <ErrorNote error={records.error} label="Could not load the records" />
      {records.loading && !records.data ? <Loading what="records" /> : null}
      {records.data && records.data.length === 0 ? <p class="empty">No records.</p> : null}
      {records.data && records.data.length > 0 ? (
        <ListTable caption={`Records of ${store.name}`} columns={["Key", "Value", "Expires", "Updated"]}>
          {records.data.map((r) => (
            <tr key={r.key}>
              <th scope="row" data-label="Key">
                <code>{r.key}</code>
              </th>
              <td data-label="Value">
                <code class="value-preview">{preview(r.value)}</code>{" "}
                <button
                  type="button"
                  class="small"
                  aria-label={`Edit ${r.key}`}
                  onClick={() => setEditing(r)}
                >
                  Edit
                </button>
              </td>
              <td data-label="Expires">{r.expires_at ? <Time ms={r.expires_at * 1000} /> : "never"}</td>
              <td data-label="Updated">
                <Time ms={r.updated_at * 1000} />
              </td>
              <DeleteCell name={r.key} onClick={() => setToDelete(r)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      {editing ? (
        <RecordForm store={store} record={editing} onDone={changed} onCancel={() => setEditing(undefined)} />
      ) : (
        <button type="button" onClick={() => setEditing({ key: "", value: undefined })}>
          Add a record
        </button>
      )}
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete the record ${toDelete?.key ?? ""}?`}
        confirmLabel="Delete record"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const r = toDelete as StoreRecord;
          await api("DELETE", `/v1/data_stores/${seg(store.id)}/records/${seg(r.key)}`);
          await changed(`Deleted ${r.key}.`);
        }}
      >
        <p>Components reading it get nothing from then on.</p>
      </ConfirmDialog>
    </section>
  );
}

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Writes a record: its key (for a new one), its value as JSON, a TTL in seconds. */
function RecordForm({
  store,
  record,
  onDone,
  onCancel,
}: {
  store: DataStore;
  record: { key: string; value: unknown };
  onDone: (message: string) => Promise<void>;
  onCancel: () => void;
}) {
  const fresh = record.key === "";
  const [key, setKey] = useState(record.key);
  const [text, setText] = useState(fresh ? "" : JSON.stringify(record.value, null, 2));
  const [ttl, setTtl] = useState("");
  const [error, setError] = useState<ApiError | undefined>();
  let jsonError = "";
  try {
    if (text.trim() !== "") JSON.parse(text);
  } catch (e) {
    jsonError = `Not JSON: ${(e as Error).message}`;
  }
  return (
    <form
      class="stack record-form"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        if (jsonError || key === "" || text.trim() === "") return;
        setError(undefined);
        try {
          await api("PUT", `/v1/data_stores/${seg(store.id)}/records/${seg(key)}`, {
            value: JSON.parse(text),
            ...(ttl.trim() !== "" ? { ttl: Number(ttl) } : {}),
          });
          await onDone(`Saved ${key}.`);
        } catch (err) {
          setError(asApiError(err));
        }
      }}
    >
      <h3>{fresh ? "New record" : `Edit ${record.key}`}</h3>
      {fresh ? <TextField id="record-key" label="Key" value={key} onChange={setKey} /> : null}
      <div class="field">
        <label for="record-value">Value (JSON)</label>
        <textarea
          id="record-value"
          rows={6}
          class="mono"
          spellcheck={false}
          value={text}
          aria-invalid={jsonError ? true : undefined}
          aria-describedby={jsonError ? "record-value-err" : undefined}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        {jsonError ? (
          <p id="record-value-err" class="error field-error" role="alert">
            {jsonError}
          </p>
        ) : null}
      </div>
      <TextField id="record-ttl" label="Expires after (seconds, optional)" value={ttl} onChange={setTtl} />
      <ErrorNote error={error} label="Not saved" />
      <div class="row">
        <button type="submit" class="primary" disabled={jsonError !== "" || key === "" || text.trim() === ""}>
          Save record
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
