// Hookline essentials: Shopify's webhooks, their signature checked (X-Shopify-Hmac-Sha256:
// base64 HMAC-SHA256(secret, raw body)); a request that fails the check is answered 401 and never
// emitted. No Shopify account is needed here: paste the app's client secret (or the webhook key).
import { createHmac, timingSafeEqual } from "node:crypto";

export default {
  key: "shopify-new-signed-event",
  name: "New Signed Event",
  description:
    "Emit each event a Shopify webhook delivers to this endpoint, once its `X-Shopify-Hmac-Sha256` is verified with the secret. The summary is the topic (`orders/create`...).",
  version: "0.1.0",
  type: "source",
  props: {
    http: { type: "$.interface.http", customResponse: true },
    secret: {
      type: "string",
      secret: true,
      label: "Secret",
      description:
        "The app's client secret, or the key shown with webhooks in the store's notification settings.",
    },
  },
  async run(event) {
    const given = String(event.headers["x-shopify-hmac-sha256"] ?? "");
    const expected = createHmac("sha256", this.secret)
      .update(event.bodyRaw ?? "")
      .digest("base64");
    if (given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
      console.log("refused: signature does not match");
      this.http.respond({ status: 401, body: { error: "invalid signature" } });
      return;
    }
    this.http.respond({ status: 200, body: { received: true } });
    const id = event.headers["x-shopify-webhook-id"];
    this.$emit(event.body ?? {}, {
      ...(id ? { id: String(id) } : {}),
      summary: String(event.headers["x-shopify-topic"] ?? "webhook"),
    });
  },
};
