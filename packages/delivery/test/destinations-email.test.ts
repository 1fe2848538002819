// $.send.email through the default SMTP destination, received by a real SMTP server on loopback.
import { isHooklineError } from "@hookline/core";
import { describe, expect, it } from "vitest";
import { createSmtpDestination, type Destinations, sendToDestination } from "../src/index.js";
import { type SmtpStandIn, type SmtpStandInOptions, startSmtpStandIn } from "./stand-ins/smtp.js";
import { closedPort, configProblems, context, failure, useCleanups } from "./support.js";

const cleanup = useCleanups();

async function smtpServer(options?: SmtpStandInOptions): Promise<SmtpStandIn> {
  const server = await startSmtpStandIn(options);
  cleanup(() => server.close());
  return server;
}

function email(options: Parameters<typeof createSmtpDestination>[0]): Destinations {
  const destination = createSmtpDestination({ timeoutMs: 10_000, ...options });
  cleanup(() => destination.close());
  return { email: destination };
}

describe("$.send.email through SMTP", () => {
  it("delivers subject, text and html from the configured sender to the default recipient, with AUTH", async () => {
    const server = await smtpServer({ users: { hookline: "p@ss:word" } });
    const destinations = email({
      url: server.url({ user: "hookline", pass: "p@ss:word" }),
      from: "Hookline <hookline@example.com>",
      to: "owner@example.com",
    });
    const sent = await sendToDestination(
      destinations,
      "email",
      {
        subject: "Build 42 failed",
        text: "The build failed.\nSee the logs.",
        html: "<p>The build <b>failed</b>.</p>",
      },
      context,
    );
    const mail = await server.next();
    expect(mail.user).toBe("hookline");
    expect(mail.mailFrom).toBe("hookline@example.com");
    expect(mail.rcptTo).toEqual(["owner@example.com"]);
    expect(mail.headers.subject).toBe("Build 42 failed");
    expect(mail.headers.from).toBe("Hookline <hookline@example.com>");
    expect(mail.headers.to).toBe("owner@example.com");
    expect(mail.text).toBe("The build failed.\r\nSee the logs.");
    expect(mail.html).toBe("<p>The build <b>failed</b>.</p>");
    expect(mail.headers["x-hookline-workflow"]).toBe("p_abc");
    expect(mail.headers["x-hookline-execution"]).toBe("exe_123");
    expect(mail.headers["x-hookline-step"]).toBe("notify");
    expect(sent.accepted).toEqual(["owner@example.com"]);
    expect(sent.rejected).toEqual([]);
    expect(sent.messageId).toMatch(/^<.+@.+>$/);
    expect(mail.headers["message-id"]).toBe(sent.messageId);
    expect(sent.response).toMatch(/^250 /);
  });

  it("keeps non-ASCII subjects and bodies intact", async () => {
    const server = await smtpServer();
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    await sendToDestination(
      destinations,
      "email",
      { subject: "Déploiement réussi ✅", text: "Schön: 日本語" },
      context,
    );
    const mail = await server.next();
    expect(mail.headers.subject).toBe("Déploiement réussi ✅");
    expect(mail.text).toBe("Schön: 日本語");
  });

  it("sends to the message's own recipients only where the server allows them", async () => {
    const server = await smtpServer();
    const destinations = email({
      url: server.url(),
      from: "hookline@example.com",
      to: "owner@example.com",
      allowedRecipients: ["@example.com", "partner@other.org"],
    });
    await sendToDestination(
      destinations,
      "email",
      { subject: "Hi", text: "Hello", to: ["Ops <ops@example.com>", "partner@other.org"] },
      context,
    );
    const mail = await server.next();
    expect(mail.rcptTo).toEqual(["ops@example.com", "partner@other.org"]);
    expect(mail.headers.to).toBe("Ops <ops@example.com>, partner@other.org");

    const error = await failure(
      sendToDestination(
        destinations,
        "email",
        { subject: "Hi", text: "Hello", to: ["a@example.com", "x@evil.test"] },
        context,
      ),
    );
    expect(error.code).toBe("invalid_send");
    expect(error.status).toBe(422);
    expect(error.details.problems).toEqual([
      expect.objectContaining({
        code: "invalid_value",
        path: "to.1",
        message: expect.stringContaining("x@evil.test"),
      }),
    ]);
    expect(server.messages).toHaveLength(1);
  });

  it("refuses a message's own recipient when the server does not let messages choose", async () => {
    const server = await smtpServer();
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const error = await failure(
      sendToDestination(
        destinations,
        "email",
        { subject: "Hi", text: "Hello", to: "someone@example.com" },
        context,
      ),
    );
    expect(error.code).toBe("invalid_send");
    expect(error.message).toContain("does not let messages choose recipients (allowedRecipients)");
    expect(error.details.problems).toEqual([expect.objectContaining({ path: "to" })]);
  });

  it("refuses a message without to when the server has no default recipient", async () => {
    const server = await smtpServer();
    const destinations = email({ url: server.url(), from: "hookline@example.com", allowedRecipients: ["*"] });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("invalid_send");
    expect(error.details.problems).toEqual([expect.objectContaining({ code: "required", path: "to" })]);
    await sendToDestination(
      destinations,
      "email",
      { subject: "Hi", text: "Hello", to: "anyone@any.test" },
      context,
    );
    expect((await server.next()).rcptTo).toEqual(["anyone@any.test"]);
  });

  it("fails with destination_rejected when AUTH is refused (535)", async () => {
    const server = await smtpServer({ users: { hookline: "right" } });
    const destinations = email({
      url: server.url({ user: "hookline", pass: "wrong" }),
      from: "hookline@example.com",
      to: "owner@example.com",
    });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("destination_rejected");
    expect(error.status).toBe(502);
    expect(error.details).toMatchObject({ destination: "email", status: 535, retryable: false });
    expect(error.message).toContain("Invalid username or password");
    expect(server.messages).toEqual([]);
  });

  it("fails with destination_rejected when the server refuses the recipient (550), not retryable", async () => {
    const server = await smtpServer({ refuseRcpt: { code: 550, message: "No such user here" } });
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("destination_rejected");
    expect(error.details).toMatchObject({ destination: "email", status: 550, retryable: false });
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("No such user here");
  });

  it("marks a temporary refusal (451) as retryable", async () => {
    const server = await smtpServer({ refuseData: { code: 451, message: "Try again later" } });
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("destination_rejected");
    expect(error.details).toMatchObject({ status: 451, retryable: true });
  });

  it("fails with destination_rejected when the server refuses the message at DATA (554)", async () => {
    const server = await smtpServer({ refuseData: { code: 554, message: "Message looks like spam" } });
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.details).toMatchObject({ status: 554, retryable: false });
    expect(error.message).toContain("Message looks like spam");
  });

  it("fails with destination_unreachable when nothing listens, retryable", async () => {
    const port = await closedPort();
    const destinations = email({
      url: `smtp://127.0.0.1:${port}`,
      from: "hookline@example.com",
      to: "owner@example.com",
    });
    const error = await failure(
      sendToDestination(destinations, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("destination_unreachable");
    expect(error.status).toBe(502);
    expect(error.details).toMatchObject({ destination: "email", retryable: true });
    expect(error.message).toContain("ECONNREFUSED");
    expect(isHooklineError(error)).toBe(true);
  });

  it("speaks smtps, verifying the certificate unless the URL says otherwise", async () => {
    const server = await smtpServer({ secure: true });
    const strict = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const error = await failure(
      sendToDestination(strict, "email", { subject: "Hi", text: "Hello" }, context),
    );
    expect(error.code).toBe("destination_unreachable");
    expect(error.message).toMatch(/certificate/i);

    const trusting = email({
      url: server.url(undefined, "tls.rejectUnauthorized=false"),
      from: "hookline@example.com",
      to: "owner@example.com",
    });
    await sendToDestination(trusting, "email", { subject: "Over TLS", text: "Hello" }, context);
    expect((await server.next()).headers.subject).toBe("Over TLS");
  });

  it("honours the step's AbortSignal", async () => {
    const server = await smtpServer();
    const destinations = email({ url: server.url(), from: "hookline@example.com", to: "owner@example.com" });
    const controller = new AbortController();
    controller.abort(new Error("step cancelled"));
    const sending = sendToDestination(
      destinations,
      "email",
      { subject: "Hi", text: "Hello" },
      {
        ...context,
        signal: controller.signal,
      },
    );
    await expect(sending).rejects.toThrow("step cancelled");
    expect(server.messages).toEqual([]);
  });
});

describe("SMTP destination configuration", () => {
  const problems = (options: Record<string, unknown>) =>
    configProblems(() => createSmtpDestination(options as never).close()).map((p) => p.message);

  it("accepts smtp and smtps URLs with supported options", () => {
    expect(
      problems({ url: "smtp://u:p@mail.example.com:587?requireTLS=true", from: "a@example.com" }),
    ).toEqual([]);
    expect(
      problems({ url: "smtps://mail.example.com", from: "A <a@example.com>", to: ["b@example.com"] }),
    ).toEqual([]);
  });

  it("names each wrong option", () => {
    expect(problems({})).toEqual(["url is required", "from is required"]);
    expect(problems({ url: "http://mail.example.com", from: "not an address" })).toEqual([
      "url must start with smtp:// or smtps://, not http://",
      "from must be one email address, such as Hookline <hookline@example.com>",
    ]);
    expect(problems({ url: "direct://", from: "a@example.com" })[0]).toContain("must start with smtp://");
    expect(problems({ url: "smtp://mail.example.com?service=gmail&proxy=x", from: "a@example.com" })).toEqual(
      [
        expect.stringContaining('url has an unsupported option "service"'),
        expect.stringContaining('url has an unsupported option "proxy"'),
      ],
    );
    expect(
      problems({
        url: "smtp://mail.example.com",
        from: "a@example.com",
        to: "nobody",
        allowedRecipients: ["example.com"],
        timeoutMs: 0,
      }),
    ).toEqual([
      "timeoutMs must be a positive number of milliseconds",
      'to has "nobody", which is not an email address',
      'allowedRecipients has "example.com": use an address, @domain or *',
    ]);
  });
});
