import { ConfigurationError, HooklineError, isHooklineError } from "@hookline/core";
import { describe, expect, it } from "vitest";

describe("HooklineError", () => {
  it("maps its code to a status and serializes", () => {
    const error = new HooklineError("not_found", "nope", { id: "x" });
    expect(error.status).toBe(404);
    expect(error.toJSON()).toEqual({ code: "not_found", message: "nope", details: { id: "x" } });
    expect(isHooklineError(error)).toBe(true);
    expect(isHooklineError(new ConfigurationError("c"))).toBe(false);
  });
});
