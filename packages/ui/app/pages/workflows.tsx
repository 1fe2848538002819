/** `/workflows`: every workflow with its trigger, steps and state; toggle, open, delete. */
import { useState } from "preact/hooks";
import { api, listAll, seg } from "../api";
import { useLoad, useNotice, useTitle } from "../hooks";
import { describeWorkflowTrigger, toMs } from "../triggers";
import type { Workflow } from "../types";
import {
  ConfirmDialog,
  DeleteCell,
  ErrorNote,
  ListTable,
  Loading,
  NextRun,
  Notice,
  Switch,
  Time,
} from "../widgets";

/** The workflows list. */
export function WorkflowsPage() {
  useTitle("Workflows");
  const list = useLoad(() => listAll<Workflow>("/v1/workflows"), []);
  const [toDelete, setToDelete] = useState<Workflow | undefined>();
  const [notice, notify] = useNotice();
  return (
    <section>
      <div class="page-head">
        <h1>Workflows</h1>
        <a class="button primary" href="/workflows/new">
          New workflow
        </a>
      </div>
      <p class="muted">
        A trigger and steps run one after another. Open one to run it now and see each step of its runs.
      </p>
      <Notice text={notice} />
      <ErrorNote error={list.error} label="Could not load the workflows" />
      {list.loading && !list.data ? <Loading what="workflows" /> : null}
      {list.data && list.data.length === 0 ? (
        <p class="empty">
          No workflows yet. Build one with <a href="/workflows/new">New workflow</a>, or write one in a file
          and create it with <code>pd workflows create workflow.yaml</code>, or{" "}
          <code>POST /v1/workflows</code>.
        </p>
      ) : null}
      {list.data && list.data.length > 0 ? (
        <ListTable caption="Workflows" columns={["Workflow", "Trigger", "Steps", "Active", "Updated"]}>
          {list.data.map((w) => (
            <tr key={w.id}>
              <th scope="row" data-label="Workflow">
                <a href={`/workflows/${w.id}`}>{w.name}</a>
                <div class="muted small-text mono">{w.id}</div>
              </th>
              <td data-label="Trigger" class="small-text">
                {describeWorkflowTrigger(w.trigger)}
                {w.trigger.type === "timer" ? <NextRun at={w.active ? w.next_run_at : null} /> : null}
              </td>
              <td data-label="Steps" class="mono small-text">
                {w.steps.map((s) => s.name).join(" → ")}
              </td>
              <td data-label="Active">
                <Switch
                  checked={w.active}
                  label={`Active: ${w.name}`}
                  onChange={async (active) => {
                    try {
                      await api("PUT", `/v1/workflows/${seg(w.id)}`, { active });
                      notify(`${w.name} is ${active ? "active" : "inactive"}.`);
                      await list.reload();
                    } catch (e) {
                      notify(`Could not change it: ${(e as Error).message}`);
                    }
                  }}
                />
              </td>
              <td data-label="Updated">
                <Time ms={toMs(w.updated_at)} />
              </td>
              <DeleteCell name={w.name} onClick={() => setToDelete(w)} />
            </tr>
          ))}
        </ListTable>
      ) : null}
      <ConfirmDialog
        open={toDelete !== undefined}
        title={`Delete ${toDelete?.name ?? "workflow"}?`}
        confirmLabel="Delete workflow"
        onClose={() => setToDelete(undefined)}
        onConfirm={async () => {
          await api("DELETE", `/v1/workflows/${seg((toDelete as Workflow).id)}`);
          notify("Workflow deleted.");
          await list.reload();
        }}
      >
        <p>Its runs and subscriptions are deleted too. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
