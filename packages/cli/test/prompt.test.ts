import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { _coerce, _missingProps, type PropJson } from "../src/_configure.js";
import { _createPrompter, _toChoice } from "../src/_prompt.js";
import { _classify } from "../src/_target.js";

/** A prompter over in-memory streams, and what it wrote. */
function fakeTerminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = "";
  output.on("data", (d: Buffer) => {
    screen += d.toString();
  });
  const prompter = _createPrompter({ input, output });
  return { input, prompter, screen: () => screen };
}

describe("the prompter", () => {
  it("reads lines with backspace, hides secrets, keeps keys typed ahead", async () => {
    const t = fakeTerminal();
    t.input.write("ab\u007fc\rs3cret\r\nnext\r");
    expect(await t.prompter.ask("Name: ")).toBe("ac");
    expect(await t.prompter.ask("Token: ", { hidden: true })).toBe("s3cret");
    expect(await t.prompter.ask("More: ")).toBe("next");
    t.prompter.close();
    expect(t.screen()).toBe("Name: ab\b \bc\nToken: \nMore: next\n");
  });

  it("offers a numbered list, asks again on a wrong answer, and takes a label typed in full", async () => {
    const t = fakeTerminal();
    const choices = ["red", { label: "Green!", value: "g" }].map(_toChoice);
    t.input.write("7\r2\r");
    expect(await t.prompter.choose("Color", choices)).toBe("g");
    expect(t.screen()).toBe(
      "Color\n  1) red\n  2) Green!\nChoose 1-2: 7\n  enter a number from 1 to 2\nChoose 1-2: 2\n",
    );
    t.input.write("red\r");
    expect(await t.prompter.choose("Again", choices)).toBe("red");
    t.prompter.close();
  });

  it("Ctrl-C, Ctrl-D on an empty line and the end of the input cancel as `interrupted`", async () => {
    for (const keys of ["ab\u0003", "\u0004"]) {
      const t = fakeTerminal();
      t.input.write(keys);
      await expect(t.prompter.ask("? ")).rejects.toMatchObject({ code: "interrupted" });
      t.prompter.close();
    }
    const t = fakeTerminal();
    t.input.end("partial");
    await expect(t.prompter.ask("? ")).rejects.toMatchObject({ code: "interrupted" });
  });
});

describe("what pd deploy asks", () => {
  const props: PropJson[] = [
    { name: "http", type: "$.interface.http" },
    { name: "db", type: "$.service.db" },
    { name: "github", type: "app" },
    { name: "count", type: "integer", min: 1, max: 5 },
    { name: "label", type: "string", optional: true },
    { name: "mode", type: "string", default: "fast" },
    { name: "token", type: "string", secret: true },
  ];

  it("only required props without a value or default, and not interfaces, services or apps", () => {
    expect(_missingProps(props, {}).map((p) => p.name)).toEqual(["count", "token"]);
    expect(_missingProps(props, { count: 2, token: "" }).map((p) => p.name)).toEqual(["token"]);
  });

  it("coerces answers to the prop's type or says what is wrong", () => {
    const prop = (type: string, extra: Partial<PropJson> = {}): PropJson => ({ name: "p", type, ...extra });
    expect(_coerce(prop("integer", { min: 1, max: 5 }), "3")).toEqual({ value: 3 });
    expect(_coerce(prop("integer", { min: 1 }), "0")).toEqual({ error: "enter 1 or more" });
    expect(_coerce(prop("integer", { max: 5 }), "9")).toEqual({ error: "enter 5 or less" });
    expect(_coerce(prop("integer"), "1.5")).toEqual({ error: "enter a whole number" });
    expect(_coerce(prop("boolean"), "Y")).toEqual({ value: true });
    expect(_coerce(prop("boolean"), "maybe")).toEqual({ error: "answer y or n" });
    expect(_coerce(prop("string"), " 42 ")).toEqual({ value: " 42 " });
    expect(_coerce(prop("string"), "  ")).toEqual({ error: "a value is required" });
    expect(_coerce(prop("string[]"), "a, b")).toEqual({ value: ["a", "b"] });
    expect(_coerce(prop("integer[]"), "[1,2]")).toEqual({ value: [1, 2] });
    expect(_coerce(prop("integer[]"), "1,x")).toEqual({ error: "enter whole numbers, comma separated" });
    expect(_coerce(prop("$.interface.timer"), "60")).toEqual({ value: { intervalSeconds: 60 } });
    expect(_coerce(prop("$.interface.timer"), "*/5 * * * *")).toEqual({ value: { cron: "*/5 * * * *" } });
    expect(_coerce(prop("object"), '{"a":1}')).toEqual({ value: { a: 1 } });
  });
});

describe("deploy targets", () => {
  it("tells files, URLs, saved ids and registry keys apart", () => {
    expect(_classify("package.json")).toEqual({ kind: "file", path: "package.json" });
    expect(_classify("https://example.com/a.mjs")).toEqual({ kind: "url", url: "https://example.com/a.mjs" });
    expect(_classify("sc_01abc")).toEqual({ kind: "id", id: "sc_01abc" });
    expect(_classify("github-new-star")).toEqual({
      kind: "key",
      key: "github-new-star",
      ref: "github-new-star",
    });
    expect(_classify("github-new-star@1.2.0")).toEqual({
      kind: "key",
      key: "github-new-star",
      version: "1.2.0",
      ref: "github-new-star@1.2.0",
    });
    // Looks like a file but is not there: a file (which then fails as file_not_found).
    expect(_classify("missing.mjs")).toEqual({ kind: "file", path: "missing.mjs" });
    expect(_classify("./src/x")).toEqual({ kind: "file", path: "./src/x" });
  });
});
