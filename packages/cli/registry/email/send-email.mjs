// Hookline essentials: an email from a workflow step through the server's SMTP destination
// ($.send.email: the configured sender; recipients as the server allows, see docs/workflows.md).
export default {
  key: "email-send-email",
  name: "Send Email",
  description:
    "Send an email through the server's email destination (`HOOKLINE_SMTP_URL`). Without `To` it goes to the server's default recipients.",
  version: "0.1.0",
  type: "action",
  props: {
    subject: { type: "string", label: "Subject" },
    text: { type: "string", label: "Text", description: "The plain-text body." },
    html: { type: "string", label: "HTML", description: "An HTML body as well.", optional: true },
    to: { type: "string[]", label: "To", description: "Recipients the server allows.", optional: true },
  },
  async run({ $ }) {
    $.send.email({
      subject: this.subject,
      text: this.text,
      ...(this.html ? { html: this.html } : {}),
      ...(this.to?.length ? { to: this.to } : {}),
    });
    $.export("$summary", `Email "${this.subject}" queued`);
  },
};
