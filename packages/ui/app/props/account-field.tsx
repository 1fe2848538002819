/**
 * An app prop: pick one of the workspace's connected accounts of that app (`{ authProvisionId }`),
 * connect one through OAuth ({@link ConnectAccountButton}: a popup to the provider, when the app has
 * an OAuth client), or add one with keys (`POST /v1/accounts`: a name and the credential fields that
 * become `$auth`; credentials are write-only and never shown again).
 */
import { useState } from "preact/hooks";
import { type ApiError, api, listAll } from "../api";
import { connectInPopup } from "../connect-popup";
import { asApiError, useLoad } from "../hooks";
import type { Account, OAuthClient } from "../types";
import { ErrorNote } from "../widgets";

/** The picker's value of an end user's account (`{ externalUserId }`). */
const END_USER = "end-user:";

/** How an account reads in a picker: its name and id, and whether it needs reconnecting. */
export const accountLabel = (a: Account) =>
  `${a.name} (${a.id})${a.status === "needs_reconnect" ? " — needs reconnect" : ""}`;

/**
 * "Connect <app> account" (or "Reconnect" with `accountId`): runs the OAuth flow in a popup and
 * calls `onConnected` with the account. Renders nothing when the app has no OAuth client.
 * Self-contained: any form with an app prop can place it.
 */
export function ConnectAccountButton({
  app,
  accountId,
  label,
  onConnected,
}: {
  app: string;
  accountId?: string;
  label?: string;
  onConnected: (account: Account) => void;
}) {
  // The list, not GET /v1/oauth_clients/{app}: an app without a client is no error to log.
  const client = useLoad(
    async () => (await api<OAuthClient[]>("GET", "/v1/oauth_clients")).find((c) => c.app === app) ?? null,
    [app],
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  if (!client.data) return null;
  return (
    <>
      <button
        type="button"
        class="small primary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            onConnected(await connectInPopup(app, accountId ? { accountId } : {}));
          } catch (e) {
            setError(asApiError(e));
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Waiting for the sign-in…" : (label ?? `Connect ${app} account`)}
      </button>
      <ErrorNote error={error} label="Could not connect the account" />
    </>
  );
}

import { describedBy, FieldNotes, type FieldProps, LabelText } from "./fields";

/** The account picker with its "Add account" form. */
export function AccountField(props: FieldProps) {
  const { prop, id, value, onChange, error } = props;
  const app = prop.app ?? prop.name;
  const accounts = useLoad(() => listAll<Account>("/v1/accounts", { app }), [app]);
  const [adding, setAdding] = useState(false);
  // A value set through the API may name an end user's account (`{ externalUserId }`, Connect): kept as an option.
  const endUser = (value as { externalUserId?: string } | undefined)?.externalUserId;
  const chosen = endUser
    ? `${END_USER}${endUser}`
    : ((value as { authProvisionId?: string } | undefined)?.authProvisionId ?? "");
  return (
    <div class="field">
      <label for={id}>
        <LabelText prop={prop} />
      </label>
      <div class="row wrap">
        <select
          id={id}
          name={prop.name}
          aria-describedby={describedBy(id, prop, error)}
          aria-invalid={error ? true : undefined}
          value={chosen}
          onChange={(e) => {
            const v = e.currentTarget.value;
            onChange(
              v.startsWith(END_USER)
                ? { externalUserId: v.slice(END_USER.length) }
                : v
                  ? { authProvisionId: v }
                  : undefined,
            );
          }}
        >
          <option value="">{accounts.loading ? "Loading accounts…" : `No ${app} account`}</option>
          {endUser ? <option value={`${END_USER}${endUser}`}>End user {endUser}'s account</option> : null}
          {(accounts.data ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {accountLabel(a)}
            </option>
          ))}
        </select>
        <ConnectAccountButton
          app={app}
          onConnected={async (account) => {
            await accounts.reload();
            onChange({ authProvisionId: account.id });
          }}
        />
        <button type="button" class="small" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          Add {app} account
        </button>
      </div>
      <ErrorNote error={accounts.error} />
      {adding ? (
        <NewAccount
          app={app}
          idPrefix={`${id}-new`}
          onCreated={async (account) => {
            setAdding(false);
            await accounts.reload();
            onChange({ authProvisionId: account.id });
          }}
        />
      ) : null}
      <FieldNotes id={id} prop={prop} error={error} />
    </div>
  );
}

/**
 * The "add account" form: a name and credential rows (field name, value); without `app` (the
 * accounts page) it asks for the app's name slug too.
 */
export function NewAccount({
  app: fixedApp,
  idPrefix,
  onCreated,
}: {
  app?: string;
  idPrefix: string;
  onCreated: (a: Account) => void;
}) {
  const [typedApp, setTypedApp] = useState("");
  const app = fixedApp ?? typedApp.trim();
  const [name, setName] = useState("");
  const [rows, setRows] = useState([{ key: "api_key", value: "" }]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const auth = Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), r.value]));
      const account = await api<Account>("POST", "/v1/accounts", { app, ...(name ? { name } : {}), auth });
      onCreated(account);
      setName("");
      setTypedApp("");
      setRows([{ key: "api_key", value: "" }]);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset class="subform">
      <legend>{fixedApp ? `Connect a ${fixedApp} account` : "Connect an account"}</legend>
      {fixedApp ? null : (
        <div class="field">
          <label for={`${idPrefix}-app`}>App (name slug)</label>
          <input
            id={`${idPrefix}-app`}
            class="mono"
            placeholder="github"
            value={typedApp}
            onInput={(e) => setTypedApp(e.currentTarget.value)}
          />
        </div>
      )}
      <div class="field">
        <label for={`${idPrefix}-name`}>Account name</label>
        <input id={`${idPrefix}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <p class="hint">
        Credential fields become the component's <code>$auth</code>; they are stored encrypted and never shown
        again.
      </p>
      {rows.map((row, i) => (
        <div class="row wrap" key={i}>
          <div class="field">
            <label for={`${idPrefix}-key-${i}`}>Field name {i + 1}</label>
            <input
              id={`${idPrefix}-key-${i}`}
              class="mono"
              value={row.key}
              onInput={(e) =>
                setRows(rows.map((r, j) => (j === i ? { ...r, key: e.currentTarget.value } : r)))
              }
            />
          </div>
          <div class="field">
            <label for={`${idPrefix}-value-${i}`}>Value {i + 1}</label>
            <input
              id={`${idPrefix}-value-${i}`}
              type="password"
              autocomplete="new-password"
              value={row.value}
              onInput={(e) =>
                setRows(rows.map((r, j) => (j === i ? { ...r, value: e.currentTarget.value } : r)))
              }
            />
          </div>
        </div>
      ))}
      <div class="row">
        <button type="button" class="small" onClick={() => setRows([...rows, { key: "", value: "" }])}>
          Add credential field
        </button>
        <button type="button" class="primary small" disabled={busy} onClick={submit}>
          Save account
        </button>
      </div>
      <ErrorNote error={error} />
    </fieldset>
  );
}
