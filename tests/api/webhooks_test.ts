/**
 * Webhooks over real HTTP (docs/api.md, Webhooks; issue 42): the service in this process on
 * the embedded store, and a receiver on loopback started here (node:http). Every change of
 * the collection's feed reaches the endpoint once, in feed order, signed as the Standard
 * Webhooks spec says (checked by the spec's algorithm written here again); a failing endpoint
 * is retried with back-off, then dead-lettered, listed and redelivered on request; the secret
 * is never shown; bad settings are refused naming the field.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  DEMO_WORKSPACE,
  itemQuery,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
  withToken,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { HANG, newSecret, Receiver, verifySignature } from "../support/webhook_receiver.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { parseConfigText } from "../../src/config/load.ts";

const TITLE = "http://purl.org/dc/terms/title";
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const ADMIN = "admin-token-0123456789abcdef";
const EDITOR = "editor-token-0123456789abcd";
const C = encodeURIComponent(DEMO_COLLECTION);

interface Change {
  cursor: string;
  time: string;
  collection: string;
  item: string;
  operation: string;
  etag: string | null;
  principal: string;
}

/** The shipped file with an admin and an editor token and the demo collection's webhooks. */
function yamlWith(webhooks: { url: string; secret: string }[]): string {
  const hooks = webhooks.map((hook) =>
    `          - { url: "${hook.url}", secret: "${hook.secret}" }\n`
  ).join("");
  return SHIPPED.replace(
    "    tokens: []",
    `    tokens:
      - { name: admin, token: "${ADMIN}", role: admin }
      - { name: e1, token: "${EDITOR}", role: editor }`,
  ).replace(
    "        itemUriTemplate: https://data.example.org/id/document/{uuid}\n",
    `        itemUriTemplate: https://data.example.org/id/document/{uuid}\n` +
      (hooks ? `        webhooks:\n${hooks}` : ""),
  );
}

async function write(
  service: TestService,
  method: string,
  uri: string,
  title?: string,
  collection = DEMO_COLLECTION,
) {
  const response = await withToken(service, EDITOR)(`/api/item?${itemQuery(uri, collection)}`, {
    method,
    headers: title === undefined ? {} : { "Content-Type": "application/n-triples" },
    body: title === undefined ? undefined : `<${uri}> <${TITLE}> "${title}" .\n`,
  });
  await response.body?.cancel();
  assert.ok(response.ok, `${method} ${uri}: ${response.status}`);
}

/** Every change of the demo collection's (or `collection`'s) feed. */
async function feed(service: TestService, collection = DEMO_COLLECTION): Promise<Change[]> {
  const response = await withToken(service, ADMIN)(
    `/api/changes?collection=${encodeURIComponent(collection)}&limit=1000`,
  );
  assert.equal(response.status, 200);
  return (await response.json()).changes;
}

async function adminJson(service: TestService, path: string, init?: RequestInit) {
  const response = await withToken(service, ADMIN)(path, init);
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json");
  return { status: response.status, text, body: json ? JSON.parse(text) : undefined };
}

/** A metric's value for the demo collection, from `/metrics`. */
async function metric(service: TestService, name: string): Promise<number> {
  const text = await (await withToken(service, ADMIN)("/metrics")).text();
  const line = text.split("\n").find((l) =>
    l.startsWith(`${name}{collection="${DEMO_COLLECTION}"}`)
  );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

/** Runs `fn` with a receiver and a service whose demo collection posts to it. */
function webhookTest(
  name: string,
  fn: (
    service: TestService,
    receiver: Receiver,
    secret: string,
    dataDir: string,
  ) => Promise<void>,
  env: Record<string, string> = {},
) {
  Deno.test({
    name: `[webhooks/embedded] ${name}`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const receiver = await Receiver.start();
      const secret = newSecret();
      const dataDir = await Deno.makeTempDir({ prefix: "rcs-webhooks-" });
      const service = await startTestService({
        yaml: yamlWith([{ url: receiver.url, secret }]),
        env,
        dataDir,
      });
      try {
        await fn(service, receiver, secret, dataDir);
      } finally {
        await service.close();
        await receiver.close();
        await Deno.remove(dataDir, { recursive: true });
      }
    },
  });
}

webhookTest(
  "every change of a burst arrives once, in feed order, signed",
  async (service, receiver, secret) => {
    const uris = Array.from({ length: 8 }, (_, n) => uniqueItemUri(`hook-${n}`));
    await Promise.all(uris.map((uri, n) => write(service, "PUT", uri, `Created ${n}`)));
    await Promise.all(uris.slice(0, 4).map((uri, n) => write(service, "POST", uri, `New ${n}`)));
    await Promise.all(uris.slice(4, 6).map((uri) => write(service, "DELETE", uri)));
    const written = Date.now();
    const changes = await feed(service);
    assert.equal(changes.length, 14);
    await receiver.until("every change", () => receiver.accepted().length >= changes.length);
    // Woken by the feed, not by the 5 s safety poll.
    assert.ok(Date.now() - written < 3000, `delivered ${Date.now() - written} ms after`);
    // A moment more: nothing arrives twice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(receiver.accepted(), changes, "each change once, in the feed's order");
    const ids = receiver.received.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, "a webhook-id per change");
    for (const got of receiver.received) {
      assert.match(got.id, /^msg_[A-Za-z0-9_-]+$/);
      assert.ok(Math.abs(Number(got.timestamp) - Date.now() / 1000) < 30, got.timestamp);
      assert.ok(await verifySignature(secret, got), `signature of ${got.id} verifies`);
      assert.equal(await verifySignature(newSecret(), got), false, "not under another key");
    }
    assert.equal(await metric(service, "rcs_webhook_deliveries_total"), changes.length);
    const [endpoint] = (await adminJson(service, "/api/admin/webhooks")).body;
    assert.equal(endpoint.position, changes.at(-1)!.cursor);
    assert.equal(endpoint.pending, 0);
    assert.equal(endpoint.last.status, 200);
    assert.equal(endpoint.lease, null, "one instance delivers: no lease to show");
  },
);

webhookTest(
  "an endpoint answering 500 for a while gets every change, in order, after back-off",
  async (service, receiver) => {
    let failUntil = 0;
    receiver.answer = () => {
      failUntil ||= Date.now() + 1500;
      return Date.now() < failUntil ? 500 : 200;
    };
    const uris = Array.from({ length: 4 }, (_, n) => uniqueItemUri(`retry-${n}`));
    for (const [n, uri] of uris.entries()) await write(service, "PUT", uri, `Item ${n}`);
    const changes = await feed(service);
    await receiver.until("every change", () => receiver.accepted().length >= changes.length);
    assert.deepEqual(receiver.accepted(), changes);
    const refused = receiver.received.filter((r) => r.answered === 500);
    assert.ok(refused.length >= 3, `retried: ${refused.length} refused attempts`);
    // Every retry was of the first change, with its id: the next waited for it.
    const firstId = receiver.received.find((r) => r.answered === 200)!.id;
    assert.ok(refused.every((r) => r.id === firstId && JSON.parse(r.body).item === uris[0]));
    // Backed off: the attempts were spread over the failing time, not made at once.
    assert.ok(refused.length < 20, `${refused.length} attempts in 1.5 s`);
    assert.equal(await metric(service, "rcs_webhook_failed_attempts_total"), refused.length);
    assert.equal(await metric(service, "rcs_webhook_dead_letters_total"), 0);
  },
  { SERVICE_WEBHOOKS_RETRY_START_MS: "100", SERVICE_WEBHOOKS_RETRY_MAX_MS: "400" },
);

webhookTest(
  "a change refused past the retry time is dead-lettered, listed, and redelivered on request",
  async (service, receiver, secret) => {
    const lines: string[] = [];
    const restoreLog = setLogSink((line) => lines.push(line), "debug");
    try {
      const poisoned = uniqueItemUri("poisoned");
      const next = uniqueItemUri("next");
      let refuse = true;
      receiver.answer = (change) => refuse && change.item === poisoned ? 500 : 200;
      await write(service, "PUT", poisoned, "Refused");
      await write(service, "PUT", next, "Accepted");
      // The refused change is given up; the one after it is delivered all the same.
      await receiver.until("the next change", () => receiver.accepted().length === 1);
      assert.equal(receiver.accepted()[0].item, next);
      const [endpoint] = (await adminJson(service, "/api/admin/webhooks")).body;
      assert.equal(endpoint.url, receiver.url);
      assert.equal(endpoint.deadLetters.length, 1);
      const [letter] = endpoint.deadLetters;
      assert.equal(letter.change.item, poisoned);
      assert.equal(letter.state, "dead");
      assert.ok(letter.attempts >= 2, `${letter.attempts} attempts`);
      assert.equal(letter.last.status, 500);
      assert.equal(await metric(service, "rcs_webhook_dead_letters_total"), 1);

      const editorCall = await withToken(service, EDITOR)(
        `/api/admin/webhooks/redeliver?id=${letter.id}`,
        { method: "POST" },
      );
      await expectProblem(editorCall, 403, "forbidden");
      await expectProblem(
        await withToken(service, ADMIN)("/api/admin/webhooks/redeliver?id=999999", {
          method: "POST",
        }),
        404,
        "dead-letter-not-found",
      );
      const missing = await expectProblem(
        await withToken(service, ADMIN)("/api/admin/webhooks/redeliver", { method: "POST" }),
        400,
        "missing-parameter",
      );
      assert.deepEqual((missing.errors as { path: string }[]).map((e) => e.path), ["id"]);

      refuse = false;
      const redelivered = await adminJson(
        service,
        `/api/admin/webhooks/redeliver?id=${letter.id}`,
        { method: "POST" },
      );
      assert.equal(redelivered.status, 202, redelivered.text);
      assert.equal(redelivered.body.state, "queued");
      await receiver.until("the redelivery", () => receiver.accepted().length === 2);
      const again = receiver.received.filter((r) => r.answered === 200).at(-1)!;
      assert.equal(JSON.parse(again.body).item, poisoned);
      assert.equal(again.id, receiver.received[0].id, "the same webhook-id as before");
      assert.ok(await verifySignature(secret, again));
      // Delivered, it leaves the list (recorded just after the endpoint's answer).
      const deadline = Date.now() + 5000;
      let after = (await adminJson(service, "/api/admin/webhooks")).body[0];
      while (after.deadLetters.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = (await adminJson(service, "/api/admin/webhooks")).body[0];
      }
      assert.deepEqual(after.deadLetters, []);
      assert.equal(receiver.accepted().length, 2, "delivered once");
      assert.ok(lines.some((line) => line.includes("dead-lettered")), "the dead letter is logged");
      assert.ok(!lines.some((line) => line.includes(secret.slice(6))), "no log line has the key");
    } finally {
      restoreLog();
    }
  },
  {
    SERVICE_WEBHOOKS_RETRY_FOR_MS: "300",
    SERVICE_WEBHOOKS_RETRY_START_MS: "50",
    SERVICE_WEBHOOKS_RETRY_MAX_MS: "100",
  },
);

webhookTest(
  "the secret is never shown: collections API, settings dump, webhook list",
  async (service, receiver, secret) => {
    const key = secret.slice("whsec_".length);
    const apiSecret = newSecret();
    const uri = "https://data.example.org/collection/hooked-" + crypto.randomUUID();
    const created = await adminJson(service, "/api/admin/collections", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        workspace: DEMO_WORKSPACE,
        uri,
        webhooks: [{ url: receiver.url, secret: apiSecret }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.webhooks, [{ url: receiver.url, secret: "******" }]);
    const shown = [
      created.text,
      (await adminJson(service, "/api/admin/collections")).text,
      (await adminJson(service, `/api/admin/collections?collection=${C}`)).text,
      (await adminJson(service, "/api/admin/tools/dump-settings", { method: "POST" })).text,
      (await adminJson(service, "/api/admin/webhooks")).text,
    ];
    for (const text of shown) {
      assert.ok(text.includes(receiver.url), "the endpoint is shown");
      assert.ok(!text.includes(key), "the configured secret is not");
      assert.ok(!text.includes(apiSecret.slice(6)), "the API-made collection's is not");
    }
    // Put back as read, masked: the collection keeps its secret, and signs with it.
    const current = await adminJson(
      service,
      `/api/admin/collections?collection=${encodeURIComponent(uri)}`,
    );
    const { source: _s, etag: _e, ...settings } = current.body;
    const replaced = await adminJson(
      service,
      `/api/admin/collections?collection=${encodeURIComponent(uri)}`,
      {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...settings, name: "Renamed" }),
      },
    );
    assert.equal(replaced.status, 200, replaced.text);
    const item = uniqueItemUri("masked");
    const put = await withToken(service, EDITOR)(`/api/item?${itemQuery(item, uri)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/n-triples" },
      body: `<${item}> <${TITLE}> "Signed" .\n`,
    });
    assert.equal(put.status, 201, await put.text());
    await receiver.until(
      "the API collection's change",
      () => receiver.received.some((r) => JSON.parse(r.body).item === item),
    );
    const got = receiver.received.find((r) => JSON.parse(r.body).item === item)!;
    assert.ok(await verifySignature(apiSecret, got), "signed with the secret kept");
  },
);

webhookTest("bad webhook settings are refused, naming the field", async (service, receiver) => {
  const post = (webhooks: unknown) =>
    withToken(service, ADMIN)("/api/admin/collections", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        workspace: DEMO_WORKSPACE,
        uri: "https://data.example.org/collection/bad-" + crypto.randomUUID(),
        webhooks,
      }),
    });
  const cases: [unknown, string, RegExp][] = [
    [[{ secret: newSecret() }], "/webhooks/0/url", /required/],
    [[{ url: receiver.url, secret: "c2VjcmV0LWtleS1vZi10ZXN0" }], "/webhooks/0/secret", /whsec_/],
    [[{ url: receiver.url, secret: "whsec_not base64!" }], "/webhooks/0/secret", /base64/],
    [[{ url: receiver.url, secret: "whsec_c2hvcnQ=" }], "/webhooks/0/secret", /16 bytes/],
    [[{ url: receiver.url }], "/webhooks/0/secret", /required/],
    [[{ url: "ftp://example.org/hook", secret: newSecret() }], "/webhooks/0/url", /http/],
    [[{ url: "not a url", secret: newSecret() }], "/webhooks/0/url", /http/],
    [[{ url: receiver.url, secret: "******" }], "/webhooks/0/secret", /masked/],
    [
      [{ url: receiver.url, secret: newSecret() }, { url: receiver.url, secret: newSecret() }],
      "/webhooks/1/url",
      /twice/,
    ],
  ];
  for (const [webhooks, path, message] of cases) {
    const problem = await expectProblem(await post(webhooks), 400, "invalid-settings");
    const errors = problem.errors as { path: string; message: string }[];
    assert.deepEqual(errors.map((e) => e.path), [path], JSON.stringify(errors));
    assert.match(errors[0].message, message);
    assert.ok(!JSON.stringify(problem).includes("c2VjcmV0LWtleS1vZi10ZXN0"), "no secret echoed");
  }
});

Deno.test("[webhooks] a bad webhook in customer.yml stops the start, naming its key, not its secret", () => {
  const yaml = yamlWith([{ url: "http://127.0.0.1:9/hook", secret: "not-a-whsec-secret-value" }]);
  assert.throws(
    () => parseConfigText(yaml, "customer.yml", () => undefined),
    (error: Error) => {
      assert.match(error.message, /workspaces\.0\.collections\.0\.webhooks\.0\.secret/);
      assert.match(error.message, /whsec_/);
      assert.ok(!error.message.includes("not-a-whsec-secret-value"), error.message);
      return true;
    },
  );
});

webhookTest(
  "a redirect or no answer in time is a failed attempt; a redirect is not followed",
  async (service, receiver) => {
    const answers = [302, HANG, 200];
    receiver.answer = () => answers.shift() ?? 200;
    const uri = uniqueItemUri("redirected");
    await write(service, "PUT", uri, "Once");
    await receiver.until("the delivery", () => receiver.accepted().length === 1);
    assert.deepEqual(receiver.received.map((r) => r.answered), [302, HANG, 200]);
    assert.deepEqual(receiver.paths, ["/hook", "/hook", "/hook"], "never to /elsewhere");
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1, "one change, one id");
    assert.equal(await metric(service, "rcs_webhook_failed_attempts_total"), 2);
  },
  {
    SERVICE_WEBHOOKS_TIMEOUT_MS: "300",
    SERVICE_WEBHOOKS_RETRY_START_MS: "50",
    SERVICE_WEBHOOKS_RETRY_MAX_MS: "50",
  },
);

Deno.test({
  name: "[webhooks/embedded] after a restart delivery resumes at the kept position: " +
    "nothing twice, nothing lost",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const receiver = await Receiver.start();
    const secret = newSecret();
    const dataDir = await Deno.makeTempDir({ prefix: "rcs-webhooks-restart-" });
    const start = (retryStartMs: string) =>
      startTestService({
        yaml: yamlWith([{ url: receiver.url, secret }]),
        env: { SERVICE_WEBHOOKS_RETRY_START_MS: retryStartMs },
        dataDir,
      });
    try {
      const uris = Array.from({ length: 3 }, (_, n) => uniqueItemUri(`restart-${n}`));
      receiver.answer = (change) => change.item === uris[2] ? 500 : 200;
      // The first instance waits 5 s before retrying: the retry is the second's.
      const first = await start("5000");
      let retryAt = 0;
      try {
        for (const uri of uris) await write(first, "PUT", uri, "Before");
        await receiver.until("the first two", () => receiver.accepted().length === 2);
        await receiver.until("a refusal", () => receiver.received.some((r) => r.answered === 500));
        const deadline = Date.now() + 5000;
        for (;;) {
          const [endpoint] = (await adminJson(first, "/api/admin/webhooks")).body;
          if (endpoint.attempts > 0) {
            retryAt = Date.parse(endpoint.nextAttempt);
            break;
          }
          assert.ok(Date.now() < deadline, "the refusal is recorded");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await first.close();
      }
      receiver.answer = () => 200;
      const second = await start("50");
      try {
        await write(second, "PUT", uniqueItemUri("restart-after"), "After");
        const changes = await feed(second);
        assert.equal(changes.length, 4);
        // The position and the failure's back-off were kept: the retry waits for its time
        // (unless the restart itself took that long, on a busy machine).
        const [endpoint] = (await adminJson(second, "/api/admin/webhooks")).body;
        if (Date.now() < retryAt - 500) {
          assert.equal(endpoint.position, changes[1].cursor, "the position was kept");
          assert.equal(endpoint.attempts, 1, "so was the failure");
          assert.equal(endpoint.pending, 2);
        }
        assert.deepEqual(
          receiver.accepted().slice(0, 2),
          changes.slice(0, 2),
          "nothing sent again",
        );
        await receiver.until("every change", () => receiver.accepted().length >= 4);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(receiver.accepted(), changes, "each once, in order, across the restart");
      } finally {
        await second.close();
      }
    } finally {
      await receiver.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

for (const backend of storeBackends({ allStores: true }).filter((b) => b.kind !== "embedded")) {
  Deno.test({
    name: `[webhooks/${backend.name}] every change once, in order, signed, after a spell of ` +
      "500s; the delivering instance's lease shown",
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const receiver = await Receiver.start();
      const secret = newSecret();
      // The store is shared with other suites: a collection of this test's own.
      const collection = `${DEMO_COLLECTION}-hooks-${crypto.randomUUID()}`;
      const service = await startTestService({
        yaml: yamlWith([{ url: receiver.url, secret }])
          .replace(`uri: ${DEMO_COLLECTION}\n`, `uri: ${collection}\n`),
        env: {
          ...backend.env,
          SERVICE_WEBHOOKS_RETRY_START_MS: "100",
          SERVICE_WEBHOOKS_RETRY_MAX_MS: "400",
        },
      });
      try {
        let failUntil = 0;
        receiver.answer = () => {
          failUntil ||= Date.now() + 1000;
          return Date.now() < failUntil ? 500 : 200;
        };
        const uris = Array.from({ length: 6 }, (_, n) => uniqueItemUri(`sparql-hook-${n}`));
        await Promise.all(
          uris.map((uri, n) => write(service, "PUT", uri, `Created ${n}`, collection)),
        );
        await write(service, "POST", uris[0], "Updated", collection);
        await write(service, "DELETE", uris[1], undefined, collection);
        const changes = await feed(service, collection);
        assert.equal(changes.length, 8);
        await receiver.until("every change", () => receiver.accepted().length >= 8, 20_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(receiver.accepted(), changes, "each change once, in the feed's order");
        assert.ok(receiver.received.some((r) => r.answered === 500), "a spell of 500s was met");
        for (const got of receiver.received) {
          assert.ok(await verifySignature(secret, got), `signature of ${got.id} verifies`);
        }
        const report = await adminJson(service, "/api/admin/webhooks");
        assert.equal(report.status, 200, report.text);
        const [endpoint] = report.body;
        assert.equal(endpoint.position, changes.at(-1)!.cursor);
        assert.ok(
          endpoint.lease?.holder,
          `the delivering instance holds the lease: ${JSON.stringify(endpoint.lease)}`,
        );
      } finally {
        await service.close();
        await receiver.close();
      }
    },
  });
}
