/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): the headers a delivery
 * carries, its signature an HMAC-SHA256 of `${id}.${timestamp}.${body}` under the key of the
 * endpoint's `whsec_` secret. By `node:crypto`, synchronously: WebCrypto's calls each cross
 * to another thread and back, which cost delivery more than the POST itself (a change is
 * signed and named once per attempt, one after the other).
 */
import { createHash, createHmac } from "node:crypto";
import { webhookKey } from "../config/webhook_setting.ts";

/** `v1,<base64 signature>` of `body` sent as message `id` at `timestamp` (unix seconds). */
export function webhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const mac = createHmac("sha256", webhookKey(secret)).update(`${id}.${timestamp}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}

/**
 * The message id of a change for an endpoint: the same on every attempt and after a restart
 * (receivers drop repeats by it), apart for each change and endpoint.
 */
export function webhookMessageId(collection: string, url: string, cursor: string): string {
  const digest = createHash("sha256").update(JSON.stringify([collection, url, cursor])).digest();
  const id = digest.subarray(0, 18).toString("base64").replaceAll("+", "-").replaceAll("/", "_");
  return `msg_${id}`;
}

/** The headers of one delivery attempt made at `now`. */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now: Date,
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": webhookSignature(secret, id, timestamp, body),
  };
}
