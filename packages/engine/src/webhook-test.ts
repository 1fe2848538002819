/**
 * A webhook's test event: one request now, signed and sent as a delivery would be (through the same
 * SSRF-guarded transport), whose answer is returned at once. Nothing is stored, retried or counted
 * in the webhook's health or circuit: it checks a receiver, for instance after fixing it.
 */
import { newId } from "@hookline/core";
import { DELIVERY_USER_AGENT, signPayload, type Transport, truncateUtf8 } from "@hookline/delivery";
import type { Webhook } from "@hookline/store";
import type { Clock } from "./clock.js";
import type { SecretBox } from "./secrets.js";

/** The channel (`x-hookline-event-name`) of a test event. */
export const TEST_EVENT_NAME = "hookline.test";

/** What sending a test event to a webhook found. */
export interface WebhookTestResult {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** The test event's id (its `webhook-id` header). */
  eventId: string;
  /** The receiver's status, when it answered. */
  status?: number;
  durationMs: number;
  /** The start of the receiver's answer. */
  response?: string;
  /**
   * Why it failed: `http_<status>`, `ssrf_blocked`, `timeout`, `secret_undecryptable` or the
   * network error.
   */
  error?: string;
}

/** Sends test events with the engine's transport and secrets. @internal */
export function createWebhookTester(
  transport: Transport,
  box: SecretBox,
  clock: Clock,
): (webhook: Webhook) => Promise<WebhookTestResult> {
  return async (webhook) => {
    const now = clock.now();
    const eventId = newId("evt", now);
    const body = JSON.stringify({
      type: TEST_EVENT_NAME,
      message: "A test event from Hookline: this webhook's receiver is reachable and verifies it.",
      webhook_id: webhook.id,
      sent_at: new Date(now).toISOString(),
    });
    const timestamp = Math.floor(now / 1000);
    const started = performance.now();
    try {
      let secrets: string[];
      try {
        secrets = webhook.secrets
          .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
          .map((s) => box.open(s.value));
      } catch {
        return { ok: false, eventId, durationMs: 0, error: "secret_undecryptable" };
      }
      const answer = await transport.post(webhook.url, {
        headers: {
          "content-type": "application/json",
          "user-agent": DELIVERY_USER_AGENT,
          "webhook-id": eventId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signPayload(secrets, eventId, timestamp, body),
          "x-hookline-event-name": TEST_EVENT_NAME,
        },
        body,
      });
      const ok = answer.status >= 200 && answer.status < 300;
      return {
        ok,
        eventId,
        status: answer.status,
        durationMs: Math.round(answer.durationMs),
        response: truncateUtf8(answer.body),
        ...(ok ? {} : { error: `http_${answer.status}` }),
      };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        ok: false,
        eventId,
        durationMs: Math.round(performance.now() - started),
        error: code === "ssrf_blocked" || code === "timeout" ? code : (error as Error).message,
      };
    }
  };
}
