/**
 * Webhook signing against the Standard Webhooks specification's own example
 * (https://github.com/standard-webhooks/standard-webhooks, spec/standard-webhooks.md), and the
 * back-off between attempts: doubling from the start, never past the cap.
 */
import { strict as assert } from "node:assert";
import { webhookMessageId, webhookSignature } from "../../src/webhooks/webhook_signature.ts";
import { backoffMs } from "../../src/webhooks/webhook_deliverer.ts";

Deno.test("webhook signature: the spec's example signs as the spec says", () => {
  assert.equal(
    webhookSignature(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    ),
    "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  );
});

Deno.test("webhook message id: stable per change and endpoint, apart otherwise", () => {
  const id = webhookMessageId("https://c.example/a", "https://h.example/in", "41");
  assert.match(id, /^msg_[A-Za-z0-9_-]{24}$/);
  assert.equal(webhookMessageId("https://c.example/a", "https://h.example/in", "41"), id);
  assert.notEqual(webhookMessageId("https://c.example/a", "https://h.example/in", "42"), id);
  assert.notEqual(webhookMessageId("https://c.example/a", "https://h.example/x", "41"), id);
  assert.notEqual(webhookMessageId("https://c.example/b", "https://h.example/in", "41"), id);
});

Deno.test("webhook back-off: doubles from the start, capped", () => {
  const waits = [1, 2, 3, 4, 9, 10, 100, 10_000].map((n) => backoffMs(n, 1000, 300_000));
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 256_000, 300_000, 300_000, 300_000]);
});
