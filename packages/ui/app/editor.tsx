/** The code editor: CodeMirror 6 with JavaScript/TypeScript highlighting, following the color scheme. */
import type { CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import { javascript, javascriptLanguage } from "@codemirror/lang-javascript";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";

// Light mode uses CodeMirror's default highlighting; dark mode these colors, all above 7:1 on the
// dark background (the default ones are made for light backgrounds).
const darkHighlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword], color: "#d7a6ff" },
  { tag: [t.string, t.special(t.string), t.regexp], color: "#c3e88d" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "#ffab8a" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "#b4bcc8", fontStyle: "italic" },
  {
    tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.variableName)],
    color: "#9cc0ff",
  },
  { tag: [t.typeName, t.className], color: "#ffd58a" },
  { tag: [t.propertyName, t.variableName, t.punctuation, t.operator, t.bracket], color: "#e7e9ed" },
  { tag: t.invalid, color: "#ff8a80" },
]);
const dark = [
  EditorView.theme({ "&": { backgroundColor: "#111318" } }, { dark: true }),
  syntaxHighlighting(darkHighlight),
];
const light = EditorView.theme({}, { dark: false });

/**
 * What a workflow code step can complete: `steps.` (the trigger and the earlier steps, with their
 * exports), `$.` (the step API) and `this.` (the step's props).
 */
export interface StepCompletions {
  /** Earlier step names and the names each exports (with `$return_value`). */
  steps: Record<string, string[]>;
  /** The step's own prop names. */
  props: string[];
}

const STEP_API: Record<string, string[]> = {
  $: ["export", "respond", "flow", "send", "context"],
  "$.flow": ["exit", "delay", "suspend", "rerun"],
  "$.send": ["http", "email", "s3", "emit", "sse"],
  "$.context": ["id", "execution_id", "workflow_id", "step", "attempt", "trigger", "ts", "run"],
};

/** A completion source for a step's code, reading what to offer from `get` at each request. */
function stepCompletion(get: () => StepCompletions | undefined) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const found = ctx.matchBefore(/(?:steps|\$|this)(?:\.[\w$]+)*\.[\w$]*$/);
    const c = get();
    if (!found || !c) return null;
    const path = found.text.slice(0, found.text.lastIndexOf("."));
    const from = found.from + path.length + 1;
    let names: string[] | undefined;
    if (path === "steps") names = ["trigger", ...Object.keys(c.steps)];
    else if (path === "steps.trigger") names = ["event", "context"];
    else if (path.startsWith("steps.") && path.split(".").length === 2) names = c.steps[path.slice(6)];
    else if (path === "this") names = c.props;
    else names = STEP_API[path];
    if (!names) return null;
    return { from, options: names.map((label) => ({ label, type: "property" })), validFor: /^[\w$]*$/ };
  };
}

/** A CodeMirror editor; `onChange` gets the whole text after each edit. */
export function CodeEditor({
  value,
  onChange,
  label,
  typescript,
  completions,
  controlled,
}: {
  value: string;
  onChange: (text: string) => void;
  label: string;
  typescript?: boolean;
  /** A workflow code step's completions (read anew at each request). */
  completions?: StepCompletions;
  /**
   * Whether a new `value` from outside replaces the text (default true: a reload after Update).
   * False: `value` is only the initial text and the editor owns it (a workflow step's card).
   */
  controlled?: boolean;
}) {
  const follows = useRef(controlled !== false);
  const offered = useRef(completions);
  offered.current = completions;
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const changed = useRef(onChange);
  changed.current = onChange;
  // The text last handed to onChange: a `value` equal to it is this editor's own edit coming back
  // (maybe late, while typing goes on), never a reason to replace the text.
  const emitted = useRef(value);

  useEffect(() => {
    const scheme = window.matchMedia("(prefers-color-scheme: dark)");
    const theme = new Compartment();
    const v = new EditorView({
      parent: host.current as HTMLDivElement,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          javascript({ typescript: typescript === true }),
          javascriptLanguage.data.of({ autocomplete: stepCompletion(() => offered.current) }),
          theme.of(scheme.matches ? dark : light),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) {
              emitted.current = u.state.doc.toString();
              changed.current(emitted.current);
            }
          }),
        ],
      }),
    });
    // The scroller is a keyboard stop of its own (axe: scrollable regions must be reachable).
    v.scrollDOM.tabIndex = 0;
    v.scrollDOM.setAttribute("aria-label", `${label}, scroll area`);
    const onScheme = () => v.dispatch({ effects: theme.reconfigure(scheme.matches ? dark : light) });
    scheme.addEventListener("change", onScheme);
    view.current = v;
    return () => {
      scheme.removeEventListener("change", onScheme);
      v.destroy();
    };
  }, []);

  // A value set from outside (a reload after Update) replaces the text.
  useEffect(() => {
    const v = view.current;
    if (v && follows.current && value !== emitted.current && v.state.doc.toString() !== value) {
      emitted.current = value;
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div class="editor" ref={host} />;
}
