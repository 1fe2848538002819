/**
 * Questions on a terminal, without dependencies: one line at a time in raw mode (so secret input
 * is not echoed), with backspace, Ctrl-C and Ctrl-D, and a numbered choice list.
 */
import { CliError } from "./_output.js";

/** The streams a prompter talks through (the process's by default; tests inject their own). */
export interface PromptStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  output: NodeJS.WritableStream;
}

/** One option of a choice list. */
export interface Choice {
  label: string;
  value: unknown;
}

/** Asks questions and reads answers. */
export interface Prompter {
  /** Asks for a line; `hidden` echoes nothing (secrets). */
  ask(question: string, options?: { hidden?: boolean }): Promise<string>;
  /** Shows a numbered list and returns the chosen option's value. */
  choose(question: string, choices: Choice[]): Promise<unknown>;
  /** Gives the input back (raw mode off, stream paused). */
  close(): void;
}

/** Whether `pd` may ask questions: stdin and stdout are terminals. @internal */
export function _isInteractive(
  input: { isTTY?: boolean } = process.stdin,
  output: { isTTY?: boolean } = process.stdout,
): boolean {
  return Boolean(input.isTTY && output.isTTY);
}

/** An option as async or static `options` give it: a value, or `{ label, value }`. @internal */
export function _toChoice(option: unknown): Choice {
  if (option !== null && typeof option === "object" && "value" in option) {
    const { label, value } = option as { label?: unknown; value: unknown };
    return { label: typeof label === "string" ? label : String(value), value };
  }
  return { label: typeof option === "string" ? option : JSON.stringify(option), value: option };
}

/**
 * Creates a prompter over `streams`. Keys typed ahead are kept for the next question. Ctrl-C
 * and Ctrl-D (on an empty line) stop with an `interrupted` error; so does the end of the input.
 * @internal
 */
export function _createPrompter(
  streams: PromptStreams = { input: process.stdin, output: process.stderr },
): Prompter {
  const { input, output } = streams;
  let pending = "";
  let ended = false;
  let waiter: (() => void) | undefined;
  const onData = (chunk: Buffer | string) => {
    pending += chunk.toString();
    waiter?.();
  };
  const onEnd = () => {
    ended = true;
    waiter?.();
  };
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    input.on("data", onData);
    input.on("end", onEnd);
    input.resume();
  };
  const setRaw = (raw: boolean) => {
    if (input.isTTY && typeof input.setRawMode === "function") input.setRawMode(raw);
  };
  const interrupted = () => new CliError("interrupted", "cancelled at a prompt");

  // Raw mode goes on before the prompt is written: a key typed as soon as the prompt shows must
  // not be echoed by the terminal (a secret would show).
  const readLine = async (prompt: string, hidden: boolean): Promise<string> => {
    listen();
    setRaw(true);
    output.write(prompt);
    let line = "";
    try {
      for (;;) {
        while (pending.length > 0) {
          const ch = pending[0] as string;
          pending = pending.slice(1);
          if (ch === "\r" || ch === "\n") {
            // A CRLF pair is one Enter.
            if (ch === "\r" && pending[0] === "\n") pending = pending.slice(1);
            output.write("\n");
            return line;
          }
          if (ch === "\u0003") throw interrupted();
          if (ch === "\u0004") {
            if (line === "") throw interrupted();
            continue;
          }
          if (ch === "\u007f" || ch === "\b") {
            if (line.length > 0) {
              line = line.slice(0, -1);
              if (!hidden) output.write("\b \b");
            }
            continue;
          }
          if (ch === "\u001b") {
            // An escape sequence (arrow keys): skip it.
            const match = /^\[[0-9;]*[A-Za-z~]/.exec(pending);
            if (match) pending = pending.slice(match[0].length);
            continue;
          }
          if (ch < " ") continue;
          line += ch;
          if (!hidden) output.write(ch);
        }
        if (ended) throw interrupted();
        await new Promise<void>((resolve) => {
          waiter = resolve;
        });
        waiter = undefined;
      }
    } finally {
      setRaw(false);
    }
  };

  return {
    async ask(question, options = {}) {
      return readLine(question, options.hidden === true);
    },
    async choose(question, choices) {
      const width = String(choices.length).length;
      output.write(`${question}\n`);
      choices.forEach((choice, i) => {
        output.write(`  ${String(i + 1).padStart(width)}) ${choice.label}\n`);
      });
      for (;;) {
        const answer = (await readLine(`Choose 1-${choices.length}: `, false)).trim();
        const n = Number(answer);
        const picked = Number.isInteger(n) ? choices[n - 1] : undefined;
        if (picked) return picked.value;
        // A label typed in full works too.
        const byLabel = choices.find((c) => c.label === answer);
        if (byLabel) return byLabel.value;
        output.write(`  enter a number from 1 to ${choices.length}\n`);
      }
    },
    close() {
      if (!listening) return;
      input.off("data", onData);
      input.off("end", onEnd);
      setRaw(false);
      input.pause();
    },
  };
}
