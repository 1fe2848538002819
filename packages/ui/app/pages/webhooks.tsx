/** `/webhooks`: every webhook with its state; create one; delete with confirmation. */
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ApiError, api, apiWarned, listAll, seg } from "../api";
import { asApiError, useLoad, useNotice, useTitle } from "../hooks";
import type { Webhook } from "../types";
import { keepWarnings } from "../warnings";
import { ConfirmDialog, DeleteCell, ErrorNote, ListTable, Loading, Notice, Switch, Time } from "../widgets";
import { HealthBadge } from "./webhook-health";

/** The webhooks list and the create form. */
export function WebhooksPage() {
  useTitle("Webhooks");
  const { route } = useLocation();
  const list = useLoad(() => listAll<Webhook>("/v1/webhooks"), []);
  const [toDelete, setToDelete] = useState<Webhook | undefined>();
  const [notice, notify] = useNotice();
  const [form, setForm] = useState({ url: "", name: "", description: "" });
  const [error, setError] = useState<ApiError | undefined>();

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="muted">
        Where events are delivered: signed along Standard Webhooks, retried until they answer 2xx.
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the webhooks" />
      {list.loading && !list.data ? <Loading what="webhooks" /> : null}
      {list.data && list.data.length === 0 ? <p class="empty">No webhooks yet: create one below.</p> : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="Webhooks" columns={["Webhook", "Health", "Active", "Created"]}>
          {list.data.map((w) => (
            <tr key={w.id}>
              <th scope="row" data-label="Webhook">
                <a href={`/webhooks/${w.id}`}>{w.name ?? w.url}</a>
                <div class="muted small-text mono">{w.name ? w.url : w.id}</div>
              </th>
              <td data-label="Health">
                <HealthBadge webhook={w} />
              </td>
              <td data-label="Active">
                <Switch
                  checked={w.active}
                  label={`Active: ${w.name ?? w.url}`}
                  onChange={async (active) => {
                    try {
                      await api("PATCH", `/v1/webhooks/${seg(w.id)}`, { active });
                      await list.reload();
                    } catch (e) {
                      notify(`Could not change it: ${(e as Error).message}`);
                    }
                  }}
                />
              </td>
              <td data-label="Created">
                <Time ms={w.created_at * 1000} />
              </td>
              <DeleteCell name={w.name ?? w.url} onClick={() => setToDelete(w)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <h2>Create a webhook</h2>
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const { data: created, warnings } = await apiWarned<Webhook>("POST", "/v1/webhooks", {
              url: form.url.trim(),
              ...(form.name.trim() ? { name: form.name.trim() } : {}),
              ...(form.description.trim() ? { description: form.description.trim() } : {}),
            });
            // An address the SSRF guard refuses: its page says so (as `pd webhooks create` does).
            keepWarnings(created.id, warnings);
            route(`/webhooks/${created.id}`);
          } catch (err) {
            setError(asApiError(err));
          }
        }}
      >
        <div class="field">
          <label for="webhook-url">URL</label>
          <input
            id="webhook-url"
            type="url"
            required
            placeholder="https://example.com/webhooks"
            value={form.url}
            onInput={(e) => setForm({ ...form, url: e.currentTarget.value })}
          />
        </div>
        <div class="row wrap">
          <div class="field grow">
            <label for="webhook-name">Name (optional)</label>
            <input
              id="webhook-name"
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </div>
          <div class="field grow">
            <label for="webhook-description">Description (optional)</label>
            <input
              id="webhook-description"
              value={form.description}
              onInput={(e) => setForm({ ...form, description: e.currentTarget.value })}
            />
          </div>
        </div>
        <ErrorNote error={error} label="Could not create the webhook" />
        <button type="submit" class="primary">
          Create webhook
        </button>
      </form>
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? toDelete?.url ?? "webhook"}?`}
        confirmLabel="Delete webhook"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          await api("DELETE", `/v1/webhooks/${seg((toDelete as Webhook).id)}`);
          notify("Webhook deleted.");
          await list.reload();
        }}
      >
        <p>Its subscriptions and pending deliveries are deleted too.</p>
      </ConfirmDialog>
    </section>
  );
}
