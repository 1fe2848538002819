/**
 * `/oauth-clients`: the workspace's OAuth clients (the operator's OAuth apps), one per app slug:
 * add or replace one (for an app of the built-in catalogue, a client id and secret suffice), see the
 * redirect URL to register with the provider, delete one. Secrets are never shown.
 */
import { useState } from "preact/hooks";
import { type ApiError, api, seg } from "../api";
import { asApiError, useLoad, useNotice, useTitle } from "../hooks";
import type { OAuthClient } from "../types";
import { ConfirmDialog, CopyButton, DeleteCell, ErrorNote, ListTable, Loading, Notice } from "../widgets";

interface Provider {
  app: string;
  name: string;
  redirect_uri: string;
  docs_url: string | null;
}

/** The OAuth clients page. */
export function OAuthClientsPage() {
  useTitle("OAuth clients");
  const list = useLoad(() => api<OAuthClient[]>("GET", "/v1/oauth_clients"), []);
  const providers = useLoad(() => api<Provider[]>("GET", "/v1/oauth_providers"), []);
  const [toDelete, setToDelete] = useState<OAuthClient | undefined>();
  const [notice, notify] = useNotice();
  // The server's own (its base URL's), which may differ from the address the browser used.
  const redirect = providers.data?.[0]?.redirect_uri ?? `${window.location.origin}/oauth/callback`;
  return (
    <section>
      <h1>OAuth clients</h1>
      <p class="muted">
        An OAuth client is your OAuth app at a provider: with one, users connect accounts of that app by
        signing in (Accounts page, or an app prop's "Connect" button). Register this redirect URL with the
        provider: <code>{redirect}</code> <CopyButton text={redirect} label="Copy the redirect URL" />
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the OAuth clients" />
      {list.loading && !list.data ? <Loading what="OAuth clients" /> : null}
      {list.data && list.data.length === 0 ? <p class="empty">No OAuth clients yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="OAuth clients" columns={["App", "Client id", "Scopes", "Redirect URL"]}>
          {list.data.map((c) => (
            <tr key={c.app}>
              <th scope="row" data-label="App">
                {c.name}
                <div class="muted small-text mono">{c.app}</div>
              </th>
              <td data-label="Client id" class="mono">
                {c.client_id}
              </td>
              <td data-label="Scopes" class="mono">
                {c.scopes.join(" ") || "—"}
              </td>
              <td data-label="Redirect URL" class="mono">
                {c.redirect_uri}
              </td>
              <DeleteCell name={c.app} onClick={() => setToDelete(c)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <h2>Add or replace an OAuth client</h2>
      <ClientForm
        providers={providers.data ?? []}
        onSaved={async (c) => {
          notify(`Saved the OAuth client of ${c.app}.`);
          await list.reload();
        }}
      />
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete the OAuth client of ${toDelete?.app ?? ""}?`}
        confirmLabel="Delete OAuth client"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const c = toDelete as OAuthClient;
          await api("DELETE", `/v1/oauth_clients/${seg(c.app)}`);
          notify(`Deleted the OAuth client of ${c.app}.`);
          await list.reload();
        }}
      >
        <p>
          Its accounts keep their tokens, but cannot be refreshed or reconnected until another client is set.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The form: app (with the catalogue's), client id and secret, and the settings of other apps. */
function ClientForm({ providers, onSaved }: { providers: Provider[]; onSaved: (c: OAuthClient) => void }) {
  const [fields, setFields] = useState({
    app: "",
    client_id: "",
    client_secret: "",
    scopes: "",
    authorize_url: "",
    token_url: "",
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const known = providers.find((p) => p.app === fields.app.trim());
  const set = (key: keyof typeof fields) => (e: { currentTarget: HTMLInputElement }) =>
    setFields({ ...fields, [key]: e.currentTarget.value });
  const input = (
    key: keyof typeof fields,
    label: string,
    type: "text" | "password" = "text",
    hint?: string,
  ) => (
    <div class="field">
      <label for={`oauth-${key}`}>{label}</label>
      {type === "password" ? (
        <input
          id={`oauth-${key}`}
          class="mono"
          type="password"
          autocomplete="new-password"
          value={fields[key]}
          onInput={set(key)}
        />
      ) : (
        <input id={`oauth-${key}`} class="mono" autocomplete="off" value={fields[key]} onInput={set(key)} />
      )}
      {hint ? <p class="hint">{hint}</p> : null}
    </div>
  );
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { client_id: fields.client_id.trim() };
      if (fields.client_secret) body.client_secret = fields.client_secret;
      if (fields.scopes.trim()) body.scopes = fields.scopes.trim().split(/\s+/);
      if (fields.authorize_url.trim()) body.authorize_url = fields.authorize_url.trim();
      if (fields.token_url.trim()) body.token_url = fields.token_url.trim();
      onSaved(await api<OAuthClient>("PUT", `/v1/oauth_clients/${seg(fields.app.trim())}`, body));
      setFields({ app: "", client_id: "", client_secret: "", scopes: "", authorize_url: "", token_url: "" });
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset class="subform">
      <legend>OAuth client</legend>
      <div class="field">
        <label for="oauth-app-slug">App (name slug)</label>
        <input
          id="oauth-app-slug"
          class="mono"
          list="oauth-providers"
          autocomplete="off"
          value={fields.app}
          onInput={set("app")}
        />
        <p class="hint">
          {known
            ? `${known.name}: its endpoints are built in.`
            : "An app of the catalogue, or any app slug with its endpoints below."}
        </p>
      </div>
      <datalist id="oauth-providers">
        {providers.map((p) => (
          <option key={p.app} value={p.app}>
            {p.name}
          </option>
        ))}
      </datalist>
      {known?.docs_url ? (
        <p class="hint">
          Register an OAuth app at <a href={known.docs_url}>{known.docs_url}</a>.
        </p>
      ) : null}
      {input("client_id", "Client id")}
      {input(
        "client_secret",
        "Client secret",
        "password",
        "Stored encrypted and never shown again; leave empty to keep the stored one.",
      )}
      {input(
        "scopes",
        "Scopes (space-separated)",
        "text",
        known ? "Leave empty for the catalogue's." : undefined,
      )}
      {known ? null : input("authorize_url", "Authorization URL")}
      {known ? null : input("token_url", "Token URL")}
      <button type="button" class="primary small" disabled={busy} onClick={submit}>
        Save OAuth client
      </button>
      <ErrorNote error={error} label="Could not save the OAuth client" />
    </fieldset>
  );
}
