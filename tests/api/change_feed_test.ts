/**
 * The change feed over real HTTP (docs/api.md, Change feed; issue 42): every committed write
 * of a collection's items once, in commit order, with its ETag and principal; none for a
 * refused write; paged by opaque cursors; live as Server-Sent Events that resume by
 * `Last-Event-ID`; `tail=N` starting before the newest N changes; an expired cursor answered
 * 410 with the oldest valid one.
 *
 * On every store: the embedded one, Fuseki and Virtuoso (whose demo collection other suites
 * write to at the same time, so each test looks at its own items' changes).
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  storeBackends,
  storeTest,
  uniqueItemUri,
  withToken,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { EventReader } from "../support/event_stream.ts";

const TITLE = "http://purl.org/dc/terms/title";
const SHIPPED = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
const EDITOR = "editor-one-token-0123456789";
const READER = "reader-token-012345678901";
/**
 * The demo collection under a name of this run's own: on a SPARQL store other suites write
 * to the demo collection at the same time, and a feed is per collection.
 */
const COLLECTION = `${DEMO_COLLECTION}-feed-${crypto.randomUUID()}`;
const YAML = SHIPPED.replace(`uri: ${DEMO_COLLECTION}\n`, `uri: ${COLLECTION}\n`).replace(
  "    tokens: []",
  `    tokens:
      - { name: e1, token: "${EDITOR}", role: editor }
      - { name: r, token: "${READER}", role: reader }`,
);
const C = encodeURIComponent(COLLECTION);

const FEED_BACKENDS = storeBackends({ allStores: true });

interface Change {
  cursor: string;
  time: string;
  collection: string;
  item: string;
  operation: string;
  etag: string | null;
  principal: string;
}

interface Page {
  collection: string;
  changes: Change[];
  next: string;
}

const as = withToken;

type Call = ReturnType<typeof as>;

async function write(call: Call, method: string, uri: string, title?: string, ifMatch?: string) {
  const response = await call(`/api/item?${itemQuery(uri, COLLECTION)}`, {
    method,
    headers: {
      ...(title === undefined ? {} : { "Content-Type": "application/n-triples" }),
      ...(ifMatch ? { "If-Match": ifMatch } : {}),
    },
    body: title === undefined ? undefined : `<${uri}> <${TITLE}> "${title}" .\n`,
  });
  await response.body?.cancel();
  return { status: response.status, etag: response.headers.get("etag")?.replaceAll('"', "") };
}

async function page(call: Call, query = ""): Promise<Page> {
  const response = await call(`/api/changes?collection=${C}${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json() as Page;
}

/** Every change after `after`, page by page of `limit`. */
async function readAll(call: Call, after?: string, limit = 100): Promise<Change[]> {
  const all: Change[] = [];
  let cursor = after;
  for (;;) {
    const got = await page(call, `&limit=${limit}${cursor ? `&after=${cursor}` : ""}`);
    all.push(...got.changes);
    if (got.changes.length === 0) return all;
    assert.equal(got.next, got.changes.at(-1)!.cursor, "next is the last change's cursor");
    cursor = got.next;
  }
}

for (const backend of FEED_BACKENDS) {
  storeTest(
    "change-feed",
    backend,
    "every committed write once, in commit order, with its ETag and principal; none for a refused one",
    async (service) => {
      const editor = as(service, EDITOR);
      const reader = as(service, READER);
      const start = (await page(reader)).next;
      const a = uniqueItemUri("feed-a");
      const b = uniqueItemUri("feed-b");
      const created = await write(editor, "PUT", a, "A 1");
      assert.equal(created.status, 201);
      const updated = await write(editor, "POST", a, "A 2");
      assert.equal(updated.status, 204);
      const refused = await write(editor, "POST", a, "A refused", `"${created.etag}"`);
      assert.equal(refused.status, 412);
      const createdB = await write(editor, "PUT", b, "B 1");
      const deleted = await write(editor, "DELETE", a);
      assert.equal(deleted.status, 204);
      const restored = await editor(`/api/item/restore?${itemQuery(a, COLLECTION)}&version=1`, {
        method: "POST",
        headers: { "If-None-Match": "*" },
      });
      assert.equal(restored.status, 204);

      const changes = (await readAll(reader, start)).filter((change) =>
        change.item === a || change.item === b
      );
      assert.deepEqual(
        changes.map((change) => [change.item, change.operation, change.etag]),
        [
          [a, "created", created.etag],
          [a, "updated", updated.etag],
          [b, "created", createdB.etag],
          [a, "deleted", null],
          [a, "restored", created.etag],
        ],
      );
      for (const change of changes) {
        assert.equal(change.collection, COLLECTION);
        assert.equal(change.principal, "token:e1");
        assert.ok(!Number.isNaN(Date.parse(change.time)), change.time);
      }
      const cursors = changes.map((change) => change.cursor);
      assert.equal(new Set(cursors).size, cursors.length, "cursors are distinct");

      // Page by page, one at a time: the same changes, each once, in the same order.
      const byOne = (await readAll(reader, start, 1)).filter((change) =>
        change.item === a || change.item === b
      );
      assert.deepEqual(byOne, changes);
      // After a cursor: exactly what follows it.
      const afterSecond = (await readAll(reader, cursors[1])).filter((change) =>
        change.item === a || change.item === b
      );
      assert.deepEqual(afterSecond, changes.slice(2));
      // Nothing new: an empty page that says where to continue.
      const last = await page(reader, `&after=${cursors.at(-1)}`);
      assert.deepEqual(last.changes, []);
      assert.equal(last.next, cursors.at(-1));
    },
    { yaml: YAML },
  );

  storeTest(
    "change-feed",
    backend,
    "bad cursors and limits are refused naming the parameter",
    async (service) => {
      const reader = as(service, READER);
      for (
        const [query, path] of [
          ["&after=abc", "after"],
          ["&after=-1", "after"],
          [
            "&limit=0",
            "limit",
          ],
          ["&limit=1001", "limit"],
          ["&tail=0", "tail"],
          ["&tail=1001", "tail"],
          [
            "&tail=x",
            "tail",
          ],
          ["&tail=2&after=0", "tail"],
        ]
      ) {
        const problem = await expectProblem(
          await reader(`/api/changes?collection=${C}${query}`),
          400,
          "invalid-parameter",
        );
        assert.equal((problem.errors as { path: string }[])[0].path, path, query);
      }
      await expectProblem(
        await reader(`/api/changes?collection=${encodeURIComponent("https://nope.example/c")}`),
        404,
        "collection-not-found",
      );
      const notAcceptable = await reader(`/api/changes?collection=${C}`, {
        headers: { Accept: "text/csv" },
      });
      await expectProblem(notAcceptable, 406, "not-acceptable");
      const anonymous = await service.fetch(`/api/changes?collection=${C}`);
      assert.equal(anonymous.status, 401);
      await anonymous.body?.cancel();
    },
    { yaml: YAML },
  );

  storeTest(
    "change-feed",
    backend,
    "live as Server-Sent Events: each event's id its cursor; Last-Event-ID resumes with exactly what was missed",
    async (service) => {
      const editor = as(service, EDITOR);
      const reader = as(service, READER);
      const start = (await page(reader)).next;
      const uri = uniqueItemUri("feed-live");
      const stream = await reader(`/api/changes?collection=${C}&after=${start}`, {
        headers: { Accept: "text/event-stream" },
      });
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
      const events = new EventReader(stream);
      const seen: Change[] = [];
      try {
        const created = await write(editor, "PUT", uri, "Live 1");
        const first = await events.next();
        assert.equal(first?.event, "change");
        const change = JSON.parse(first!.data!) as Change;
        assert.equal(first!.id, change.cursor);
        assert.deepEqual([change.item, change.operation, change.etag], [
          uri,
          "created",
          created.etag,
        ]);
        seen.push(change);
        for (let n = 2; n <= 4; n++) {
          await write(editor, "POST", uri, `Live ${n}`);
          seen.push(JSON.parse((await events.next())!.data!) as Change);
        }
      } finally {
        await events.close();
      }
      assert.deepEqual(seen.map((change) => change.operation), [
        "created",
        "updated",
        "updated",
        "updated",
      ]);
      // Two more writes while disconnected; resuming from the second event's id gives the
      // two after it the stream saw and the two it missed, in order, nothing else.
      const missed = [
        await write(editor, "POST", uri, "Live 5"),
        await write(editor, "POST", uri, "Live 6"),
      ];
      const resumed = await reader(`/api/changes?collection=${C}`, {
        headers: { Accept: "text/event-stream", "Last-Event-ID": seen[1].cursor },
      });
      const again = new EventReader(resumed);
      try {
        const got: Change[] = [];
        for (let n = 0; n < 4; n++) got.push(JSON.parse((await again.next())!.data!) as Change);
        assert.deepEqual(got.map((change) => change.cursor).slice(0, 2), [
          seen[2].cursor,
          seen[3].cursor,
        ]);
        assert.deepEqual(got.slice(2).map((change) => change.etag), missed.map((m) => m.etag));
      } finally {
        await again.close();
      }
    },
    { yaml: YAML },
  );

  storeTest(
    "change-feed",
    backend,
    "tail=N starts before the newest N changes: as a page, and as a live stream Last-Event-ID resumes",
    async (service) => {
      const editor = as(service, EDITOR);
      const reader = as(service, READER);
      const uri = uniqueItemUri("feed-tail");
      const etags: (string | undefined)[] = [];
      etags.push((await write(editor, "PUT", uri, "Tail 1")).etag);
      for (let n = 2; n <= 5; n++) etags.push((await write(editor, "POST", uri, `Tail ${n}`)).etag);
      const all = (await readAll(reader)).filter((change) => change.item === uri);
      assert.deepEqual(all.map((change) => change.etag), etags);

      // The newest two, oldest first; next continues after the newest.
      const two = await page(reader, "&tail=2");
      assert.deepEqual(two.changes, all.slice(3));
      assert.equal(two.next, all[4].cursor);
      // More than the feed holds: from the oldest kept change, as without a cursor.
      assert.deepEqual((await page(reader, "&tail=1000")).changes, all);
      // A tail longer than a page: its first page, and `next` goes on through it.
      const first = await page(reader, "&tail=4&limit=3");
      assert.deepEqual(first.changes, all.slice(1, 4));
      assert.deepEqual((await page(reader, `&after=${first.next}`)).changes, all.slice(4));

      // Live: the newest two, then what is written next.
      const stream = await reader(`/api/changes?collection=${C}&tail=2`, {
        headers: { Accept: "text/event-stream" },
      });
      assert.equal(stream.status, 200);
      const events = new EventReader(stream);
      try {
        const got: string[] = [];
        for (let n = 0; n < 2; n++) got.push((await events.next())!.id!);
        assert.deepEqual(got, [all[3].cursor, all[4].cursor]);
        const sixth = await write(editor, "POST", uri, "Tail 6");
        const live = JSON.parse((await events.next())!.data!) as Change;
        assert.equal(live.etag, sixth.etag);
      } finally {
        await events.close();
      }
      // A reconnect sends the same URL with Last-Event-ID: it resumes there, not at the tail.
      const resumed = await reader(`/api/changes?collection=${C}&tail=1`, {
        headers: { Accept: "text/event-stream", "Last-Event-ID": all[1].cursor },
      });
      const again = new EventReader(resumed);
      try {
        assert.equal((await again.next())!.id, all[2].cursor);
      } finally {
        await again.close();
      }
    },
    { yaml: YAML },
  );

  storeTest(
    "change-feed",
    backend,
    "an expired cursor answers 410 with the oldest valid one; reading from there has no gap",
    async (service) => {
      const editor = as(service, EDITOR);
      const reader = as(service, READER);
      const uri = uniqueItemUri("feed-expired");
      await write(editor, "PUT", uri, "Old 1");
      await write(editor, "POST", uri, "Old 2");
      // The first of the two: once both are pruned, changes after it are gone.
      const old = (await readAll(reader)).filter((change) => change.item === uri).at(-2)!;
      // The retention is one second; pruning runs every second.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const recent = await write(editor, "POST", uri, "New 2");
      const expired = await reader(`/api/changes?collection=${C}&after=${old.cursor}`);
      const problem = await expectProblem(expired, 410, "cursor-expired");
      const oldest = problem.oldest as string;
      assert.ok(oldest, "the problem names the oldest valid cursor");
      await expectProblem(
        await reader(`/api/changes?collection=${C}&after=${old.cursor}`, {
          headers: { Accept: "text/event-stream" },
        }),
        410,
        "cursor-expired",
      );
      const mine = (changes: Change[]) => changes.filter((change) => change.item === uri);
      const fromOldest = await readAll(reader, oldest);
      assert.deepEqual(mine(fromOldest).map((change) => change.etag), [recent.etag]);
      // Without a cursor: from the oldest kept change.
      assert.deepEqual(mine(await readAll(reader)).map((change) => change.etag), [recent.etag]);
    },
    { yaml: YAML, env: { SERVICE_CHANGES_RETENTION_MS: "1000" } },
  );
}
