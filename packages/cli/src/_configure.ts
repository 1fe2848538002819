/** Asking for a component's missing required props at a terminal (`pd deploy` on a TTY). */
import type { PropDescription } from "@hookline/core";
import type { ApiClient } from "./_api.js";
import { note, style } from "./_output.js";
import { _toChoice, type Choice, type Prompter } from "./_prompt.js";
import { parsePropValue } from "./_props.js";

/** A prop as the API lists it in `configurable_props`: core's description plus its name. */
export interface PropJson extends PropDescription {
  name: string;
}

/** Props the user never types: interfaces and services are wired by the server. @internal */
const WIRED = new Set(["$.interface.http", "$.service.db", "alert", "app", "dir", "data_store"]);

/**
 * The required props `given` leaves without a value: not optional, no default, not wired by the
 * server (HTTP, db), and not an app (apps take a connected account, not typed input).
 * @internal
 */
export function _missingProps(props: PropJson[], given: Record<string, unknown>): PropJson[] {
  return props.filter((p) => {
    if (WIRED.has(p.type) || p.valueType === "none") return false;
    if (p.optional === true || p.default !== undefined) return false;
    const value = given[p.name];
    return value === undefined || value === null || value === "";
  });
}

/** Turns typed text into a value of the prop's type, or an error message. @internal */
export function _coerce(prop: PropJson, text: string): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "a value is required" };
  // Types outside SPEC's table say what they take: `$.discord.channel[]` is asked as string[].
  const scalar = prop.valueType === "string" || prop.valueType === "integer" || prop.valueType === "boolean";
  const type = scalar ? `${prop.valueType}${prop.type.endsWith("[]") ? "[]" : ""}` : prop.type;
  switch (type) {
    case "string":
      return { value: text };
    case "integer": {
      const n = Number(trimmed);
      if (!Number.isInteger(n)) return { error: "enter a whole number" };
      if (prop.min !== undefined && n < prop.min) return { error: `enter ${prop.min} or more` };
      if (prop.max !== undefined && n > prop.max) return { error: `enter ${prop.max} or less` };
      return { value: n };
    }
    case "boolean": {
      if (/^(y|yes|true|1)$/i.test(trimmed)) return { value: true };
      if (/^(n|no|false|0)$/i.test(trimmed)) return { value: false };
      return { error: "answer y or n" };
    }
    case "string[]":
    case "integer[]": {
      const parsed = parsePropValue(trimmed);
      const list = Array.isArray(parsed) ? parsed : trimmed.split(",").map((s) => s.trim());
      if (type === "string[]") return { value: list.map(String) };
      const numbers = list.map(Number);
      if (numbers.some((n) => !Number.isInteger(n))) return { error: "enter whole numbers, comma separated" };
      return { value: numbers };
    }
    case "$.interface.timer": {
      const n = Number(trimmed);
      if (Number.isInteger(n) && n > 0) return { value: { intervalSeconds: n } };
      return { value: { cron: trimmed } };
    }
    default:
      return { value: parsePropValue(trimmed) };
  }
}

/** The question line for a prop. @internal */
function _question(prop: PropJson): string {
  const label = prop.label && prop.label !== prop.name ? `${prop.label} (${prop.name})` : prop.name;
  const hint =
    prop.type === "boolean"
      ? " [y/n]"
      : prop.type === "$.interface.timer"
        ? " [seconds or cron]"
        : prop.type.endsWith("[]")
          ? " [comma separated]"
          : prop.type === "integer" && (prop.min !== undefined || prop.max !== undefined)
            ? ` [${prop.min ?? ""}..${prop.max ?? ""}]`
            : "";
  return `${style.bold(label, process.stderr)}${hint}`;
}

/**
 * For each required app prop without a value, offers the workspace's connected accounts of that
 * app as a list (and "no account", for apps that need none); without any, says how to connect one.
 * @internal
 */
async function _chooseAccounts(
  client: ApiClient,
  props: PropJson[],
  given: Record<string, unknown>,
  prompter: Prompter,
): Promise<Record<string, unknown>> {
  const values = { ...given };
  for (const prop of props) {
    if (prop.type !== "app" || prop.optional === true || values[prop.name] !== undefined) continue;
    const app = prop.app ?? prop.name;
    const accounts = await client.list<{ id: string; name: string }>(
      `/v1/accounts?app=${encodeURIComponent(app)}&limit=100`,
    );
    if (accounts.data.length === 0) {
      note(
        style.dim(
          `${prop.name}: no ${app} account is connected (connect one with: pd accounts create ${app})`,
          process.stderr,
        ),
      );
      continue;
    }
    const choices: Choice[] = [
      ...accounts.data.map((a) => ({ label: `${a.name} (${a.id})`, value: { authProvisionId: a.id } })),
      { label: "no account", value: undefined },
    ];
    const chosen = await prompter.choose(`${_question(prop)} (${app} account)`, choices);
    if (chosen !== undefined) values[prop.name] = chosen;
  }
  return values;
}

/**
 * Asks for each missing required prop of a component, in declaration order, and returns the
 * answers merged into `given`. Static options and async options (fetched from
 * `POST /v1/components/{id}/props/{prop}/options` with the values so far) are offered as a
 * numbered list; secret props are read without echo; typed values are checked against the
 * prop's type and asked again when wrong.
 * @internal
 */
export async function _askMissingProps(
  client: ApiClient,
  componentId: string | undefined,
  props: PropJson[],
  given: Record<string, unknown>,
  prompter: Prompter,
): Promise<Record<string, unknown>> {
  const values = await _chooseAccounts(client, props, given, prompter);
  const missing = _missingProps(props, values);
  if (missing.length === 0) return values;
  note(
    style.dim(
      `${missing.length} required prop${missing.length === 1 ? "" : "s"} to fill in:`,
      process.stderr,
    ),
  );
  for (const prop of missing) {
    if (prop.description) note(style.dim(`  ${prop.description}`, process.stderr));
    let choices: Choice[] | undefined = prop.options?.map(_toChoice);
    if (!choices && prop.dynamicOptions && componentId) {
      note(style.dim(`Fetching options for ${prop.name}...`, process.stderr));
      try {
        const result = await client.request<{ options: unknown[] }>(
          "POST",
          `/v1/components/${encodeURIComponent(componentId)}/props/${encodeURIComponent(prop.name)}/options`,
          { configured_props: values },
        );
        choices = result.options.map(_toChoice);
      } catch (error) {
        note(
          style.yellow(`  cannot load options (${(error as Error).message}); type a value`, process.stderr),
        );
      }
    }
    if (choices && choices.length > 0) {
      values[prop.name] = await prompter.choose(_question(prop), choices);
      continue;
    }
    for (;;) {
      const answer = await prompter.ask(`${_question(prop)}: `, { hidden: prop.secret === true });
      const coerced = _coerce(prop, answer);
      if ("value" in coerced) {
        values[prop.name] = coerced.value;
        break;
      }
      note(style.yellow(`  ${coerced.error}`, process.stderr));
    }
  }
  return values;
}
