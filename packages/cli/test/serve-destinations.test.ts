// `pd serve` reads the destinations of $.send.email and $.send.s3 from its environment: a
// misconfigured variable stops it naming the variable; configured ones show on the banner.
import { describe, expect, it } from "vitest";
import { startSmtpStandIn } from "../../delivery/test/stand-ins/smtp.js";
import { baseEnv, pd, serve, stop, tempDir } from "./_helpers.js";

describe("pd serve destinations", () => {
  it("refuses a misconfigured destination with a usage error naming the variables", async () => {
    const run = await pd(["serve", "--memory", "--port", "0"], {
      cwd: tempDir(),
      env: baseEnv({ HOOKLINE_EMAIL_FROM: "not an address", HOOKLINE_S3_TIMEOUT_MS: "soon" }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^usage: /);
    expect(run.stderr).toContain("HOOKLINE_S3_TIMEOUT_MS must be a number of milliseconds");
  }, 60_000);

  it("names a missing required variable", async () => {
    const run = await pd(["serve", "--memory", "--port", "0"], {
      cwd: tempDir(),
      env: baseEnv({ HOOKLINE_EMAIL_FROM: "hookline@example.com" }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^usage: .*HOOKLINE_SMTP_URL is required/);
  }, 60_000);

  it("shows which destinations are on", async () => {
    const smtp = await startSmtpStandIn();
    try {
      const server = await serve(
        ["--memory"],
        {
          cwd: tempDir(),
          env: baseEnv({
            HOOKLINE_SMTP_URL: smtp.url(),
            HOOKLINE_EMAIL_FROM: "Hookline <hookline@example.com>",
            HOOKLINE_EMAIL_TO: "owner@example.com",
          }),
        },
        60_000,
      );
      const line = server.output.stdout.split("\n").find((l) => l.includes("Sends:"));
      expect(line).toContain("$.send.email (SMTP)");
      expect(line).toContain("$.send.s3: set HOOKLINE_S3_ACCESS_KEY_ID");
      expect(await stop(server)).toBe(0);
    } finally {
      await smtp.close();
    }
  }, 90_000);
});
