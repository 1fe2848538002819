/**
 * `/accounts`: the workspace's connected accounts (managed auth for app props); connect one,
 * delete one (refused with `account_in_use` while a source uses it). Credentials are never shown.
 */
import { useState } from "preact/hooks";
import { api, listAll, seg } from "../api";
import { useLoad, useNotice, useTitle } from "../hooks";
import { NewAccount } from "../props/account-field";
import type { Account } from "../types";
import { ConfirmDialog, DeleteCell, ErrorNote, ListTable, Loading, Notice, Time } from "../widgets";

/** The accounts page. */
export function AccountsPage() {
  useTitle("Accounts");
  const list = useLoad(() => listAll<Account>("/v1/accounts"), []);
  const [toDelete, setToDelete] = useState<Account | undefined>();
  const [notice, notify] = useNotice();
  return (
    <section>
      <h1>Accounts</h1>
      <p class="muted">
        Connected accounts give app props their <code>$auth</code>. Credentials are stored encrypted and never
        shown again.
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the accounts" />
      {list.loading && !list.data ? <Loading what="accounts" /> : null}
      {list.data && list.data.length === 0 ? <p class="empty">No connected accounts yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="Connected accounts" columns={["Name", "App", "Connected"]}>
          {list.data.map((a) => (
            <tr key={a.id}>
              <th scope="row" data-label="Name">
                {a.name}
                <div class="muted small-text mono">{a.id}</div>
              </th>
              <td data-label="App">
                <code>{a.app}</code>
              </td>
              <td data-label="Connected">
                <Time ms={a.created_at * 1000} />
              </td>
              <DeleteCell name={a.name} onClick={() => setToDelete(a)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <h2>Connect an account</h2>
      <NewAccount
        idPrefix="account"
        onCreated={async (a) => {
          notify(`Connected ${a.name} (${a.id}).`);
          await list.reload();
        }}
      />
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
