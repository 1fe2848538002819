/**
 * A real SMTP server on loopback (smtp-server, from the nodemailer project) that keeps what it
 * receives, checks AUTH when given users, and refuses what a test tells it to. Tests of
 * `$.send.email` (here and in the workflow suites) send to it; nothing leaves the machine.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** A message as the stand-in received it. */
export interface ReceivedMail {
  /** The envelope sender (MAIL FROM). */
  mailFrom: string;
  /** The envelope recipients (RCPT TO). */
  rcptTo: string[];
  /** The user that authenticated, when AUTH was used. */
  user?: string;
  /** Headers, lower-cased names, unfolded, encoded words decoded. */
  headers: Record<string, string>;
  /** The text/plain part, decoded. */
  text?: string;
  /** The text/html part, decoded. */
  html?: string;
  /** The message as sent. */
  raw: string;
}

/** A refusal: the reply code and text the server answers with. */
export interface Refusal {
  code: number;
  message: string;
}

/** Options of {@link startSmtpStandIn}. */
export interface SmtpStandInOptions {
  /** Users and passwords AUTH accepts; without it AUTH is optional and anything goes. */
  users?: Record<string, string>;
  /** Refuse every RCPT TO with this reply. */
  refuseRcpt?: Refusal;
  /** Refuse every message at the end of DATA with this reply. */
  refuseData?: Refusal;
  /** TLS from the start (smtps), with smtp-server's built-in self-signed certificate. */
  secure?: boolean;
}

/** A running stand-in. */
export interface SmtpStandIn {
  /** `smtp://` (or `smtps://`) URL of the server, with `user:pass@` when given. */
  url(auth?: { user: string; pass: string }, query?: string): string;
  /** Messages received, oldest first. */
  readonly messages: ReceivedMail[];
  /** Resolves with the oldest message not awaited yet, waiting for it when needed. */
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, _charset, encoding: string, text: string) =>
    encoding.toUpperCase() === "B"
      ? Buffer.from(text, "base64").toString("utf8")
      : decodeQuotedPrintable(text.replace(/_/g, " ")),
  );
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** Splits a MIME entity into its headers and its body. */
function entity(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = split < 0 ? raw : raw.slice(0, split);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body: split < 0 ? "" : raw.slice(split + 4) };
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8");
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  return body;
}

/** The text/plain and text/html parts of a message (one level of multipart, as nodemailer sends). */
function parts(headers: Record<string, string>, body: string): { text?: string; html?: string } {
  const type = headers["content-type"] ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  if (!boundary) {
    const decoded = decodeBody(headers, body).replace(/\r\n$/, "");
    return type.startsWith("text/html") ? { html: decoded } : { text: decoded };
  }
  const out: { text?: string; html?: string } = {};
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith("--")) break;
    const part = entity(chunk.replace(/^\r\n/, ""));
    Object.assign(out, parts(part.headers, part.body.replace(/\r\n$/, "")));
  }
  return out;
}

/**
 * Starts the stand-in on a free loopback port.
 *
 * @example
 * ```ts
 * const smtp = await startSmtpStandIn({ users: { hookline: "secret" } });
 * // ... send to smtp.url({ user: "hookline", pass: "secret" })
 * const mail = await smtp.next();
 * await smtp.close();
 * ```
 */
export async function startSmtpStandIn(options: SmtpStandInOptions = {}): Promise<SmtpStandIn> {
  const messages: ReceivedMail[] = [];
  const waiting: (() => void)[] = [];
  let awaited = 0;
  const refuse = (refusal: Refusal) =>
    Object.assign(new Error(refusal.message), { responseCode: refusal.code });
  const server = new SMTPServer({
    secure: options.secure ?? false,
    disabledCommands: options.secure ? [] : ["STARTTLS"],
    authOptional: options.users === undefined,
    allowInsecureAuth: true,
    logger: false,
    // Connections still open when the test closes the server are cut at once.
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      const users = options.users ?? {};
      if (auth.username !== undefined && users[auth.username] === auth.password) {
        callback(null, { user: auth.username });
      } else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      callback(options.refuseRcpt ? refuse(options.refuseRcpt) : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (options.refuseData) {
          callback(refuse(options.refuseData));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const { headers, body } = entity(raw);
        const mailFrom = session.envelope.mailFrom;
        const mail: ReceivedMail = {
          mailFrom: mailFrom ? mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          ...(typeof session.user === "string" ? { user: session.user } : {}),
          headers,
          ...parts(headers, body),
          raw,
        };
        messages.push(mail);
        for (const wake of waiting.splice(0)) wake();
        callback(null);
      });
    },
  });
  // A client that hangs up mid-handshake (it refused the certificate) is an 'error' event, not a crash.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    messages,
    url(auth, query) {
      const scheme = options.secure ? "smtps" : "smtp";
      const who = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : "";
      return `${scheme}://${who}127.0.0.1:${port}${query ? `?${query}` : ""}`;
    },
    next() {
      const index = awaited++;
      return new Promise((resolve) => {
        const check = () => {
          const mail = messages[index];
          if (mail) resolve(mail);
          else waiting.push(check);
        };
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
