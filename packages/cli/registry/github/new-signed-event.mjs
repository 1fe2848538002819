// Hookline essentials: GitHub's webhooks, their signature checked (X-Hub-Signature-256:
// sha256=HMAC-SHA256(secret, raw body)); a request that fails the check is answered 401 and never
// emitted. No GitHub account is needed here: give the webhook's secret in GitHub and in this prop.
import { createHmac, timingSafeEqual } from "node:crypto";

export default {
  key: "github-new-signed-event",
  name: "New Signed Event",
  description:
    "Emit each event a GitHub webhook delivers to this endpoint, once its `X-Hub-Signature-256` is verified with the webhook's secret. The summary is the event's type (`push`, `issues opened`...).",
  version: "0.1.0",
  type: "source",
  props: {
    http: { type: "$.interface.http", customResponse: true },
    secret: {
      type: "string",
      secret: true,
      label: "Webhook secret",
      description: "The secret set on the webhook in GitHub (Settings → Webhooks).",
    },
  },
  async run(event) {
    const given = String(event.headers["x-hub-signature-256"] ?? "");
    const expected = `sha256=${createHmac("sha256", this.secret)
      .update(event.bodyRaw ?? "")
      .digest("hex")}`;
    if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
      console.log("refused: signature does not match");
      this.http.respond({ status: 401, body: { error: "invalid signature" } });
      return;
    }
    this.http.respond({ status: 200, body: { received: true } });
    const type = String(event.headers["x-github-event"] ?? "event");
    const delivery = event.headers["x-github-delivery"];
    this.$emit(event.body ?? {}, {
      ...(delivery ? { id: String(delivery) } : {}),
      summary: `${type}${event.body?.action ? ` ${event.body.action}` : ""}`,
    });
  },
};
