/**
 * `/accounts`: the workspace's connected accounts (managed auth for app props): connect one through
 * OAuth (a popup to the provider, for apps with an OAuth client) or with keys, reconnect one whose
 * grant was refused (`needs_reconnect`), rename one, delete one (refused with `account_in_use`
 * while a source uses it). Credentials are never shown.
 */
import { useState } from "preact/hooks";
import { api, listAll, seg } from "../api";
import { useLoad, useNotice, useTitle } from "../hooks";
import { ConnectAccountButton, NewAccount } from "../props/account-field";
import type { Account, OAuthClient } from "../types";
import { ConfirmDialog, DeleteCell, ErrorNote, ListTable, Loading, Notice, Time } from "../widgets";

/** The accounts page. */
export function AccountsPage() {
  useTitle("Accounts");
  const list = useLoad(() => listAll<Account>("/v1/accounts"), []);
  const clients = useLoad(() => api<OAuthClient[]>("GET", "/v1/oauth_clients"), []);
  const [app, setApp] = useState("");
  const [toDelete, setToDelete] = useState<Account | undefined>();
  const [notice, notify] = useNotice();
  const connected = async (a: Account) => {
    notify(`Connected ${a.name} (${a.id}).`);
    await list.reload();
  };
  const chosenApp = app || clients.data?.[0]?.app || "";
  return (
    <section>
      <h1>Accounts</h1>
      <p class="muted">
        Connected accounts give app props their <code>$auth</code>. Credentials are stored encrypted and never
        shown again; OAuth tokens are refreshed by the server.
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the accounts" />
      {list.loading && !list.data ? <Loading what="accounts" /> : null}
      {list.data && list.data.length === 0 ? <p class="empty">No connected accounts yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="Connected accounts" columns={["Name", "App", "Status", "Connected"]}>
          {list.data.map((a) => (
            <tr key={a.id}>
              <th scope="row" data-label="Name">
                {a.name}
                <div class="muted small-text mono">{a.id}</div>
                {a.external_user_id ? (
                  <div class="muted small-text">End user {a.external_user_id}</div>
                ) : null}
              </th>
              <td data-label="App">
                <code>{a.app}</code>
                {a.oauth ? <span class="muted small-text"> OAuth</span> : null}
              </td>
              <td data-label="Status">
                {a.status === "needs_reconnect" ? <strong class="error">Needs reconnect</strong> : "Active"}
                {a.oauth ? (
                  <div>
                    <ConnectAccountButton
                      app={a.app}
                      accountId={a.id}
                      label={`Reconnect ${a.name}`}
                      onConnected={connected}
                    />
                  </div>
                ) : null}
              </td>
              <td data-label="Connected">
                <Time ms={a.created_at * 1000} />
              </td>
              <DeleteCell name={a.name} onClick={() => setToDelete(a)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <h2>Connect through OAuth</h2>
      {clients.data && clients.data.length === 0 ? (
        <p class="muted">
          No app has an OAuth client yet: add one on the <a href="/oauth-clients">OAuth clients</a> page.
        </p>
      ) : null}
      {clients.data && clients.data.length > 0 ? (
        <div class="row wrap">
          <div class="field">
            <label for="oauth-app">App</label>
            <select id="oauth-app" value={chosenApp} onChange={(e) => setApp(e.currentTarget.value)}>
              {clients.data.map((c) => (
                <option key={c.app} value={c.app}>
                  {c.name} ({c.app})
                </option>
              ))}
            </select>
          </div>
          <ConnectAccountButton key={chosenApp} app={chosenApp} onConnected={connected} />
        </div>
      ) : null}
      <h2>Connect with keys</h2>
      <NewAccount idPrefix="account" onCreated={connected} />
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? "account"}?`}
        confirmLabel="Delete account"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          const a = toDelete as Account;
          await api("DELETE", `/v1/accounts/${seg(a.id)}`);
          notify(`Deleted ${a.name}.`);
          await list.reload();
        }}
      >
        <p>Sources whose app props use it must be changed first; the server refuses otherwise.</p>
      </ConfirmDialog>
    </section>
  );
}
