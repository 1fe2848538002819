// Hookline essentials: Stripe's webhooks, their signature checked (Stripe-Signature: t=<time>,
// v1=HMAC-SHA256(secret, "<t>.<raw body>")) and their timestamp within the tolerance; a request
// that fails the check is answered 400 and never emitted. No Stripe account is needed: paste the
// endpoint's signing secret (whsec_...) from Stripe's dashboard.
import { createHmac, timingSafeEqual } from "node:crypto";

export default {
  key: "stripe-new-signed-event",
  name: "New Signed Event",
  description:
    "Emit each event Stripe sends to this endpoint, once its `Stripe-Signature` is verified with the endpoint's signing secret. Add the URL as a webhook endpoint in Stripe's dashboard.",
  version: "0.1.0",
  type: "source",
  props: {
    http: { type: "$.interface.http", customResponse: true },
    signingSecret: {
      type: "string",
      secret: true,
      label: "Signing secret",
      description: "The endpoint's signing secret from Stripe's dashboard (`whsec_...`).",
    },
    toleranceSeconds: {
      type: "integer",
      label: "Tolerance (seconds)",
      description: "How old a signed timestamp may be.",
      optional: true,
      default: 300,
      min: 0,
    },
  },
  async run(event) {
    const header = String(event.headers["stripe-signature"] ?? "");
    const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=")));
    const t = Number(parts.t);
    const expected = createHmac("sha256", this.signingSecret)
      .update(`${parts.t}.${event.bodyRaw ?? ""}`)
      .digest("hex");
    const given = header
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p.startsWith("v1="))
      .map((p) => p.slice(3));
    const same = given.some(
      (sig) => sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected)),
    );
    const fresh = Number.isFinite(t) && Math.abs(Date.now() / 1000 - t) <= (this.toleranceSeconds ?? 300);
    if (!same || !fresh) {
      console.log(`refused: ${!same ? "signature does not match" : "timestamp outside the tolerance"}`);
      this.http.respond({ status: 400, body: { error: "invalid signature" } });
      return;
    }
    this.http.respond({ status: 200, body: { received: true } });
    const body = event.body ?? {};
    this.$emit(body, {
      id: body.id,
      summary: `${body.type ?? "event"} ${body.id ?? ""}`.trim(),
      ts: (body.created ?? t) * 1000,
    });
  },
};
