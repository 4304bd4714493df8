/**
 * A collection's webhooks (issue 42): `workspaces[].collections[].webhooks: [{url, secret}]`,
 * each an endpoint every change of the collection's feed is POSTed to (src/webhooks/).
 *
 * The secret is a Standard Webhooks key, `whsec_` and the key's bytes in base64. It is read
 * here only ({@link webhookKey}); wherever settings are shown it is replaced by the mask
 * ({@link withoutWebhookSecrets}), so that no answer or log line carries it.
 */
import { z } from "zod";
import { MASK } from "./secret_masking.ts";

/** The secret's prefix (Standard Webhooks). */
const PREFIX = "whsec_";

/** Standard (not URL-safe) base64 with its padding, as the spec writes keys. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key bytes of a `whsec_` secret. */
export function webhookKey(secret: string): Uint8Array<ArrayBuffer> {
  const text = atob(secret.slice(PREFIX.length));
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/** What is wrong with a secret, if anything (never the secret itself: messages are shown). */
function secretProblem(secret: string): string | undefined {
  if (secret === MASK) {
    return "the masked secret as shown; give the secret itself (whsec_<base64>)";
  }
  if (!secret.startsWith(PREFIX)) return "must start with whsec_ (whsec_<base64 key>)";
  const key = secret.slice(PREFIX.length);
  if (key === "" || !BASE64.test(key)) return "whsec_ must be followed by the key in base64";
  // HMAC-SHA256 takes any key length; fewer than 16 bytes is guessable.
  if (webhookKey(secret).length < 16) return "the key must be at least 16 bytes";
  return undefined;
}

/** One endpoint of a collection. */
export const webhookSchema = z.object({
  url: z.string({ error: "required: the http:// or https:// URL to POST changes to" })
    .refine((url) => {
      try {
        const { protocol } = new URL(url);
        return protocol === "http:" || protocol === "https:";
      } catch {
        return false;
      }
    }, "must be an http:// or https:// URL"),
  secret: z.string({ error: "required: the signing secret, whsec_<base64 key>" })
    .superRefine((secret, ctx) => {
      const problem = secretProblem(secret);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
}).strict();

/** A collection's endpoints: each URL once (its delivery position is kept by URL). */
export const webhooksSchema = z.array(webhookSchema).superRefine((hooks, ctx) => {
  const seen = new Set<string>();
  hooks.forEach((hook, index) => {
    if (seen.has(hook.url)) {
      ctx.addIssue({ code: "custom", path: [index, "url"], message: "listed twice" });
    }
    seen.add(hook.url);
  });
});

/** One configured endpoint. */
export type WebhookSetting = z.infer<typeof webhookSchema>;

/** Settings (a collection's, as given) with each webhook's secret masked. */
export function withoutWebhookSecrets(settings: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(settings.webhooks)) return settings;
  return {
    ...settings,
    webhooks: settings.webhooks.map((hook) =>
      typeof hook === "object" && hook !== null && "secret" in hook
        ? { ...hook, secret: MASK }
        : hook
    ),
  };
}

/**
 * `given` webhooks with a masked secret (what the collections API shows) given back the
 * secret `current` has for the same URL: a collection read, edited and put back keeps its
 * secrets. A masked secret for a URL not configured before stays, and is refused.
 */
export function restoreWebhookSecrets(
  given: unknown,
  current: readonly WebhookSetting[] | undefined,
): unknown {
  if (!Array.isArray(given) || !current) return given;
  return given.map((hook) => {
    if (typeof hook !== "object" || hook === null || hook.secret !== MASK) return hook;
    const before = current.find((entry) => entry.url === hook.url);
    return before ? { ...hook, secret: before.secret } : hook;
  });
}
