// What every $.send.email / $.send.s3 goes through: the message checks, the size caps, an
// unconfigured destination, custom destinations, and the configuration from the environment.
import { isHooklineError } from "@hookline/core";
import { describe, expect, it } from "vitest";
import {
  closeDestinations,
  DESTINATION_LIMITS,
  type Destinations,
  destinationOptionsFromEnv,
  destinationsFromEnv,
  type EmailMessage,
  sendToDestination,
} from "../src/index.js";
import { startS3StandIn } from "./stand-ins/s3.js";
import { startSmtpStandIn } from "./stand-ins/smtp.js";
import { configProblems, context, failure, useCleanups } from "./support.js";

const cleanup = useCleanups();

/** A destination set that records what reaches it. */
function recording() {
  const emails: EmailMessage[] = [];
  const objects: { bucket?: string; prefix?: string; body: string }[] = [];
  const destinations: Destinations = {
    email: {
      async send(message) {
        emails.push(message);
        return { messageId: "<1@test>", accepted: ["x@example.com"], rejected: [], response: "250 OK" };
      },
    },
    s3: {
      async send(message) {
        objects.push({ bucket: message.bucket, prefix: message.prefix, body: message.body.toString() });
        return { bucket: "b", key: "k", url: "http://s3/b/k", size: message.body.length };
      },
    },
  };
  return { destinations, emails, objects };
}

describe("sendToDestination", () => {
  it("hands checked messages to custom destinations", async () => {
    const { destinations, emails, objects } = recording();
    const sent = await sendToDestination(destinations, "email", { subject: "S", html: "<p>x</p>" }, context);
    expect(sent.response).toBe("250 OK");
    expect(emails).toEqual([{ subject: "S", html: "<p>x</p>" }]);
    const stored = await sendToDestination(
      destinations,
      "s3",
      { bucket: "b-1", prefix: "p/", payload: { a: [1] } },
      context,
    );
    expect(stored.key).toBe("k");
    expect(objects).toEqual([{ bucket: "b-1", prefix: "p/", body: '{"a":[1]}' }]);
  });

  it("refuses a kind that is not a destination", async () => {
    await expect(sendToDestination({}, "http" as "s3", { payload: 1 }, context)).rejects.toThrow(
      'No destination kind "http" (email or s3)',
    );
  });

  it.each(["email", "s3"] as const)(
    "fails $.send.%s with destination_not_configured naming the settings",
    async (kind) => {
      const message = kind === "email" ? { subject: "S", text: "T" } : { bucket: "bucket", payload: 1 };
      const error = await failure(sendToDestination({}, kind, message, context));
      expect(error.code).toBe("destination_not_configured");
      expect(error.status).toBe(501);
      expect(error.destination).toBe(kind);
      expect(error.retryable).toBe(false);
      expect(error.name).toBe("HooklineError");
      expect(isHooklineError(error)).toBe(true);
      const settings = kind === "email" ? "HOOKLINE_SMTP_URL" : "HOOKLINE_S3_ACCESS_KEY_ID";
      expect(error.message).toContain(`$.send.${kind} is not configured on this server: set ${settings}`);
      expect(error.toJSON()).toMatchObject({
        code: "destination_not_configured",
        details: { destination: kind, retryable: false, settings: expect.arrayContaining([settings]) },
      });
    },
  );

  describe("checks $.send.email messages, naming each field", () => {
    const problems = async (payload: unknown) => {
      const error = await failure(sendToDestination(recording().destinations, "email", payload, context));
      expect(error.code).toBe("invalid_send");
      expect(error.status).toBe(422);
      return error.details.problems ?? [];
    };

    it.each([
      [
        null,
        "",
        "invalid_type",
        "$.send.email() takes an object { subject, text, html, to, include_collaborators }",
      ],
      ["hello", "", "invalid_type", "$.send.email() takes an object"],
      [{ text: "T" }, "subject", "required", "subject is required"],
      [{ subject: "S" }, "text", "required", "text is required (or html, or both)"],
      [{ subject: 5, text: "T" }, "subject", "invalid_type", "subject must be a non-empty single line"],
      [{ subject: "", text: "T" }, "subject", "invalid_value", "subject must be a non-empty single line"],
      [
        { subject: "a\r\nBcc: x@evil.test", text: "T" },
        "subject",
        "invalid_value",
        "subject must be a non-empty single line",
      ],
      [{ subject: "S", text: { path: "/etc/passwd" } }, "text", "invalid_type", "text must be a string"],
      [{ subject: "S", html: ["<p>"] }, "html", "invalid_type", "html must be a string"],
      [{ subject: "S", text: "T", to: 5 }, "to", "invalid_type", "to must be an email address or a list"],
      [{ subject: "S", text: "T", to: [] }, "to", "invalid_value", "to must be an email address or a list"],
      [
        { subject: "S", text: "T", to: "a@b.c\nBcc: x@y.z" },
        "to",
        "invalid_value",
        "to must be an email address",
      ],
      [
        { subject: "S", text: "T", bcc: "x@y.z" },
        "bcc",
        "invalid_value",
        '"bcc" is not a field of $.send.email()',
      ],
    ])("%j: %s %s", async (payload, path, code, message) => {
      expect(await problems(payload)).toEqual([
        expect.objectContaining({ path, code, message: expect.stringContaining(message) }),
      ]);
    });

    it("reports every bad field at once", async () => {
      const found = await problems({ subject: 1, html: 2, extra: true });
      expect(found.map((p) => p.path).sort()).toEqual(["extra", "html", "subject"]);
    });

    it("accepts Pipedream's include_collaborators and ignores it", async () => {
      const { destinations, emails } = recording();
      await sendToDestination(
        destinations,
        "email",
        { subject: "S", text: "T", include_collaborators: true },
        context,
      );
      expect(emails).toHaveLength(1);
    });

    it("caps subject length, recipients and body size", async () => {
      const subject = "x".repeat(DESTINATION_LIMITS.subjectLength + 1);
      expect(await problems({ subject, text: "T" })).toEqual([expect.objectContaining({ path: "subject" })]);
      const to = Array.from({ length: DESTINATION_LIMITS.recipients + 1 }, (_, i) => `u${i}@example.com`);
      expect(await problems({ subject: "S", text: "T", to })).toEqual([
        expect.objectContaining({ path: "to" }),
      ]);
      // One multi-byte character over the byte cap.
      const text = `${"é".repeat(DESTINATION_LIMITS.emailBodyBytes / 2)}x`;
      const error = await failure(
        sendToDestination(recording().destinations, "email", { subject: "S", text }, context),
      );
      expect(error.code).toBe("payload_too_large");
      expect(error.status).toBe(413);
      expect(error.details).toMatchObject({ field: "text", limit: DESTINATION_LIMITS.emailBodyBytes });
      expect(error.message).toBe(
        `$.send.email(): text is ${DESTINATION_LIMITS.emailBodyBytes + 1} bytes, over the limit of ${DESTINATION_LIMITS.emailBodyBytes} bytes`,
      );
    });
  });

  describe("checks $.send.s3 messages, naming each field", () => {
    const problems = async (payload: unknown) => {
      const error = await failure(sendToDestination(recording().destinations, "s3", payload, context));
      expect(error.code).toBe("invalid_send");
      return error.details.problems ?? [];
    };

    it.each([
      [[1], "", "invalid_type", "$.send.s3() takes an object { bucket, prefix, payload }"],
      [{ bucket: "b-1" }, "payload", "required", "payload is required"],
      [{ bucket: "b-1", payload: undefined }, "payload", "required", "payload is required"],
      [{ bucket: "Bad_Name", payload: 1 }, "bucket", "invalid_value", "bucket must be an S3 bucket name"],
      [{ bucket: "ab", payload: 1 }, "bucket", "invalid_value", "bucket must be an S3 bucket name"],
      [{ bucket: 7, payload: 1 }, "bucket", "invalid_type", "bucket must be an S3 bucket name"],
      [
        { prefix: "a\u0000b", payload: 1 },
        "prefix",
        "invalid_value",
        "prefix must be a string without control",
      ],
      [{ prefix: ["a"], payload: 1 }, "prefix", "invalid_type", "prefix must be a string"],
      [{ payload: 1, key: "x" }, "key", "invalid_value", '"key" is not a field of $.send.s3()'],
    ])("%j: %s %s", async (payload, path, code, message) => {
      expect(await problems(payload)).toEqual([
        expect.objectContaining({ path, code, message: expect.stringContaining(message) }),
      ]);
    });

    it("refuses a payload that is not JSON", async () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(await problems({ payload: cyclic })).toEqual([
        expect.objectContaining({
          path: "payload",
          code: "invalid_value",
          message: expect.stringContaining("payload is not JSON"),
        }),
      ]);
      expect(await problems({ payload: 10n })).toEqual([expect.objectContaining({ path: "payload" })]);
    });

    it("caps the prefix and the serialized payload", async () => {
      const prefix = "é".repeat(DESTINATION_LIMITS.prefixBytes / 2 + 1);
      const big = await failure(
        sendToDestination(recording().destinations, "s3", { prefix, payload: 1 }, context),
      );
      expect(big.code).toBe("payload_too_large");
      expect(big.details).toMatchObject({ field: "prefix", limit: DESTINATION_LIMITS.prefixBytes });
      const payload = { data: "x".repeat(DESTINATION_LIMITS.s3PayloadBytes) };
      const huge = await failure(sendToDestination(recording().destinations, "s3", { payload }, context));
      expect(huge.code).toBe("payload_too_large");
      expect(huge.details).toMatchObject({ field: "payload", limit: DESTINATION_LIMITS.s3PayloadBytes });
    });
  });
});

describe("destinations from the environment", () => {
  it("configures nothing from an empty environment", async () => {
    expect(destinationOptionsFromEnv({})).toEqual({});
    expect(destinationOptionsFromEnv({ HOOKLINE_SMTP_URL: " ", HOOKLINE_S3_BUCKET: "" })).toEqual({});
    const error = await failure(sendToDestination(destinationsFromEnv({}), "s3", { payload: 1 }, context));
    expect(error.code).toBe("destination_not_configured");
  });

  it("reads every variable, lists comma-separated", () => {
    expect(
      destinationOptionsFromEnv({
        HOOKLINE_SMTP_URL: "smtps://u:p@mail.example.com",
        HOOKLINE_EMAIL_FROM: "Hookline <h@example.com>",
        HOOKLINE_EMAIL_TO: "a@example.com, b@example.com",
        HOOKLINE_EMAIL_ALLOWED_TO: "@example.com,ops@other.org",
        HOOKLINE_SMTP_TIMEOUT_MS: "5000",
        HOOKLINE_S3_ENDPOINT: "http://minio:9000",
        HOOKLINE_S3_REGION: "auto",
        HOOKLINE_S3_ACCESS_KEY_ID: "k",
        HOOKLINE_S3_SECRET_ACCESS_KEY: "s",
        HOOKLINE_S3_SESSION_TOKEN: "t",
        HOOKLINE_S3_BUCKET: "out",
        HOOKLINE_S3_ALLOWED_BUCKETS: "a-1, b-2",
        HOOKLINE_S3_PATH_STYLE: "false",
        HOOKLINE_S3_TIMEOUT_MS: "20000",
      }),
    ).toEqual({
      email: {
        url: "smtps://u:p@mail.example.com",
        from: "Hookline <h@example.com>",
        to: ["a@example.com", "b@example.com"],
        allowedRecipients: ["@example.com", "ops@other.org"],
        timeoutMs: 5000,
      },
      s3: {
        endpoint: "http://minio:9000",
        region: "auto",
        accessKeyId: "k",
        secretAccessKey: "s",
        sessionToken: "t",
        bucket: "out",
        allowedBuckets: ["a-1", "b-2"],
        pathStyle: false,
        timeoutMs: 20000,
      },
    });
  });

  it("names the variables in its errors", () => {
    const messages = (env: Record<string, string>) =>
      configProblems(() => closeDestinations(destinationsFromEnv(env)));
    expect(messages({ HOOKLINE_EMAIL_TO: "me@example.com" })).toEqual([
      { code: "required", path: "HOOKLINE_SMTP_URL", message: "HOOKLINE_SMTP_URL is required" },
      { code: "required", path: "HOOKLINE_EMAIL_FROM", message: "HOOKLINE_EMAIL_FROM is required" },
    ]);
    expect(messages({ HOOKLINE_S3_BUCKET: "out" })).toEqual([
      expect.objectContaining({
        path: "HOOKLINE_S3_ACCESS_KEY_ID",
        message: "HOOKLINE_S3_ACCESS_KEY_ID is required",
      }),
      expect.objectContaining({ path: "HOOKLINE_S3_SECRET_ACCESS_KEY" }),
    ]);
    expect(messages({ HOOKLINE_S3_PATH_STYLE: "yes", HOOKLINE_SMTP_TIMEOUT_MS: "soon" })).toEqual([
      expect.objectContaining({
        path: "HOOKLINE_SMTP_TIMEOUT_MS",
        message: "HOOKLINE_SMTP_TIMEOUT_MS must be a number of milliseconds",
      }),
      expect.objectContaining({
        path: "HOOKLINE_S3_PATH_STYLE",
        message: "HOOKLINE_S3_PATH_STYLE must be true or false",
      }),
    ]);
  });

  it("sends through both defaults configured from the environment", async () => {
    const smtp = await startSmtpStandIn({ users: { bot: "pw" } });
    cleanup(() => smtp.close());
    const s3 = await startS3StandIn({
      accessKeyId: "k",
      secretAccessKey: "s",
      region: "auto",
      buckets: ["out"],
    });
    cleanup(() => s3.close());
    const destinations = destinationsFromEnv({
      HOOKLINE_SMTP_URL: smtp.url({ user: "bot", pass: "pw" }),
      HOOKLINE_EMAIL_FROM: "bot@example.com",
      HOOKLINE_EMAIL_TO: "owner@example.com",
      HOOKLINE_S3_ENDPOINT: s3.endpoint,
      HOOKLINE_S3_REGION: "auto",
      HOOKLINE_S3_ACCESS_KEY_ID: "k",
      HOOKLINE_S3_SECRET_ACCESS_KEY: "s",
      HOOKLINE_S3_BUCKET: "out",
    });
    cleanup(() => closeDestinations(destinations));
    await sendToDestination(destinations, "email", { subject: "From env", text: "T" }, context);
    const stored = await sendToDestination(
      destinations,
      "s3",
      { prefix: "env/", payload: { ok: true } },
      context,
    );
    expect((await smtp.next()).headers.subject).toBe("From env");
    expect(s3.objects.map((o) => [o.bucket, o.key, o.body.toString()])).toEqual([
      ["out", stored.key, '{"ok":true}'],
    ]);
  });
});
