/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): the headers a delivery
 * carries, its signature an HMAC-SHA256 of `${id}.${timestamp}.${body}` under the key of the
 * endpoint's `whsec_` secret, by WebCrypto.
 */
import { webhookKey } from "../config/webhook_setting.ts";

const encoder = new TextEncoder();

function base64(bytes: ArrayBuffer | Uint8Array): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/** `v1,<base64 signature>` of `body` sent as message `id` at `timestamp` (unix seconds). */
export async function webhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    webhookKey(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(mac)}`;
}

/**
 * The message id of a change for an endpoint: the same on every attempt and after a restart
 * (receivers drop repeats by it), apart for each change and endpoint.
 */
export async function webhookMessageId(
  collection: string,
  url: string,
  cursor: string,
): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    encoder.encode(JSON.stringify([collection, url, cursor])),
  );
  const id = base64(digest.slice(0, 18)).replaceAll("+", "-").replaceAll("/", "_");
  return `msg_${id}`;
}

/** The headers of one delivery attempt made at `now`. */
export async function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now: Date,
): Promise<Record<string, string>> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await webhookSignature(secret, id, timestamp, body),
  };
}
