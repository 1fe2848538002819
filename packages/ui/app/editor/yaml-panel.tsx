/**
 * The workflow as a file: its YAML (the format of `pd workflows create`, docs/workflows.md) to
 * view and download, and a YAML (or JSON) file to import into the editor. The YAML library loads
 * when the panel is used.
 */
import { useState } from "preact/hooks";
import { type Draft, fileProblems, fromWorkflow, toDefinition } from "./model";

const yaml = () => import("yaml");

/** The panel. */
export function YamlPanel({
  draft,
  onImport,
}: {
  draft: Draft;
  /** Applies an imported draft; resolves once the editor shows it. */
  onImport: (d: Draft) => Promise<void>;
}) {
  const [text, setText] = useState<string | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [imported, setImported] = useState("");
  const file = `${(draft.name || "workflow").replace(/[^\w.-]+/g, "-")}.yaml`;
  return (
    <details
      class="yaml-panel"
      onToggle={async (e) => {
        if ((e.currentTarget as HTMLDetailsElement).open)
          setText((await yaml()).stringify(toDefinition(draft)));
      }}
    >
      <summary>YAML: view, download, import</summary>
      {text !== undefined ? (
        <>
          <div class="row">
            <button
              type="button"
              class="small"
              onClick={async () => setText((await yaml()).stringify(toDefinition(draft)))}
            >
              Refresh YAML
            </button>
            <a
              class="button small"
              download={file}
              href={`data:text/yaml;charset=utf-8,${encodeURIComponent(text)}`}
            >
              Download {file}
            </a>
          </div>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <section class="json yaml" tabIndex={0} aria-label="The workflow as YAML">
            <pre>{text}</pre>
          </section>
        </>
      ) : null}
      <div class="field">
        <label for="yaml-import">Import a workflow file (YAML or JSON)</label>
        <input
          id="yaml-import"
          type="file"
          accept=".yaml,.yml,.json,text/yaml,application/json"
          aria-describedby={problems.length > 0 ? "yaml-import-err" : undefined}
          onChange={async (e) => {
            const chosen = e.currentTarget.files?.[0];
            if (!chosen) return;
            setImported("");
            let parsed: unknown;
            try {
              parsed = (await yaml()).parse(await chosen.text());
            } catch (error) {
              setProblems([`${chosen.name} is not YAML: ${(error as Error).message}`]);
              return;
            }
            const found = fileProblems(parsed);
            setProblems(found);
            if (found.length > 0) return;
            // Said once the editor holds the import (its actions' components load first).
            await onImport(fromWorkflow(parsed as Record<string, unknown>));
            setImported(`Imported ${chosen.name}: review it, then Test or Deploy.`);
          }}
        />
        {problems.length > 0 ? (
          <ul id="yaml-import-err" class="error" role="alert">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        ) : null}
        {imported ? <p role="status">{imported}</p> : null}
      </div>
    </details>
  );
}
