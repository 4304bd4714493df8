/**
 * Fault suite, concurrency: many clients writing at once, on both store backends.
 *
 * - 50 updates of one item sent together with the same `If-Match`: exactly one wins per
 *   version, the other 49 are 412, and the stored graph is the winner's;
 * - clients doing read-modify-write increments in interleaved rounds: no update is lost;
 * - 200 creates sent together: 200 distinct items, each readable with its own body, each
 *   indexed once; and 200 creates of the same URI: exactly one 201, 199 × 409.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  storeBackends,
  storeTest,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { readServedItem, uniqueWord } from "../support/item_versions.ts";

const TITLE = "http://purl.org/dc/terms/title";
const COUNT = "https://example.org/fault/count";
const DOCUMENT = "http://xmlns.com/foaf/0.1/Document";
const COLLECTION_QUERY = `collection=${encodeURIComponent(DEMO_COLLECTION)}`;

function titleBody(uri: string, title: string): string {
  return JSON.stringify({ "@id": uri, [TITLE]: title });
}

/** The unquoted value of a response's ETag. */
function etagOf(response: Response): string {
  return (response.headers.get("etag") ?? "").replaceAll('"', "");
}

/** The single object of `predicate` in N-Triples text (plain string literals only). */
function literalOf(ntriples: string, predicate: string): string {
  const pattern = new RegExp(`<${predicate.replace(/[.]/g, "\\.")}> "([^"]*)"`, "g");
  const values = [...ntriples.matchAll(pattern)].map((match) => match[1]);
  assert.equal(values.length, 1, `one <${predicate}> expected in:\n${ntriples}`);
  return values[0];
}

async function update(
  service: TestService,
  uri: string,
  body: string,
  ifMatch: string,
): Promise<Response> {
  return await service.fetch(`/api/item?${itemQuery(uri)}`, {
    method: "POST",
    headers: { "Content-Type": "application/ld+json", "If-Match": `"${ifMatch}"` },
    body,
  });
}

async function create(service: TestService, uri: string, title: string): Promise<string> {
  const response = await service.fetch(`/api/item?${COLLECTION_QUERY}`, {
    method: "PUT",
    headers: { "Content-Type": "application/ld+json" },
    body: titleBody(uri, title),
  });
  assert.equal(response.status, 201, await response.text());
  return etagOf(response);
}

for (const backend of storeBackends()) {
  const test = (name: string, fn: (service: TestService) => Promise<void>) =>
    storeTest("faults/concurrency", backend, name, fn);

  test("50 updates with one If-Match: exactly one wins per version, 49 get 412", async (service) => {
    const uri = uniqueItemUri("if-match");
    let etag = await create(service, uri, "version 0");
    for (let round = 1; round <= 4; round++) {
      const responses = await Promise.all(
        Array.from(
          { length: 50 },
          (_, writer) =>
            update(service, uri, titleBody(uri, `round ${round} writer ${writer}`), etag),
        ),
      );
      const winners = responses.flatMap((response, writer) =>
        response.status === 204 ? [{ writer, etag: etagOf(response) }] : []
      );
      assert.equal(winners.length, 1, `round ${round}: statuses ${responses.map((r) => r.status)}`);
      for (const response of responses) {
        if (response.status === 204) await response.body?.cancel();
        else await expectProblem(response, 412, "precondition-failed");
      }
      const [winner] = winners;
      assert.notEqual(winner.etag, etag, "a new version has a new ETag");
      const stored = await readServedItem(service.url, uri);
      assert.ok(stored);
      assert.equal(stored.hash, winner.etag, `round ${round}: the winner's graph is stored`);
      assert.equal(literalOf(stored.ntriples, TITLE), `round ${round} writer ${winner.writer}`);
      // The losers' ETag is stale now: one more try with it is refused too.
      await expectProblem(
        await update(service, uri, titleBody(uri, "late"), etag),
        412,
        "precondition-failed",
      );
      etag = winner.etag;
    }
  });

  test("interleaved read-modify-write rounds lose no update", async (service) => {
    const uri = uniqueItemUri("counter");
    const counterBody = (value: number) =>
      JSON.stringify({ "@id": uri, [COUNT]: String(value), [TITLE]: "counter" });
    const created = await service.fetch(`/api/item?${COLLECTION_QUERY}`, {
      method: "PUT",
      headers: { "Content-Type": "application/ld+json" },
      body: counterBody(0),
    });
    assert.equal(created.status, 201, await created.text());

    const CLIENTS = 10;
    const INCREMENTS = 5;
    /** Every value some client's successful update wrote. */
    const written: number[] = [];
    let refused = 0;
    const client = async () => {
      for (let done = 0; done < INCREMENTS;) {
        const current = await readServedItem(service.url, uri);
        assert.ok(current);
        const next = Number(literalOf(current.ntriples, COUNT)) + 1;
        const response = await update(service, uri, counterBody(next), current.hash);
        if (response.status === 204) {
          await response.body?.cancel();
          written.push(next);
          done++;
        } else {
          await expectProblem(response, 412, "precondition-failed");
          refused++;
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));

    const final = await readServedItem(service.url, uri);
    assert.ok(final);
    assert.equal(Number(literalOf(final.ntriples, COUNT)), CLIENTS * INCREMENTS);
    // Each version was won once: the successful writes are exactly 1, 2, …, N.
    assert.deepEqual(
      written.toSorted((a, b) => a - b),
      Array.from({ length: CLIENTS * INCREMENTS }, (_, n) => n + 1),
    );
    assert.ok(refused > 0, "the clients did contend");
  });

  test("200 concurrent creates with blank-node roots: 200 distinct items, none lost", async (service) => {
    const word = uniqueWord();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        service.fetch(`/api/item?${COLLECTION_QUERY}`, {
          method: "PUT",
          headers: { "Content-Type": "application/ld+json" },
          body: JSON.stringify({ "@type": DOCUMENT, [TITLE]: `${word} create ${n}` }),
        })),
    );
    const created = new Map<string, { n: number; etag: string }>();
    for (const [n, response] of responses.entries()) {
      const text = await response.text();
      assert.equal(response.status, 201, text);
      const { uri } = JSON.parse(text);
      assert.match(uri, /^https:\/\/data\.example\.org\/id\/document\/[0-9a-f-]{36}$/);
      assert.ok(!created.has(uri), `${uri} minted twice`);
      created.set(uri, { n, etag: etagOf(response) });
    }
    assert.equal(created.size, 200);
    await Promise.all([...created].map(async ([uri, { n, etag }]) => {
      const stored = await readServedItem(service.url, uri);
      assert.ok(stored, `${uri} is readable`);
      assert.equal(stored.hash, etag);
      assert.equal(literalOf(stored.ntriples, TITLE), `${word} create ${n}`);
    }));

    // The index holds each item once.
    await service.services.deps.indexOutbox.drain();
    const search = await service.fetch(`/api/search?${COLLECTION_QUERY}&q=${word}&size=500`);
    const found = await search.json() as { total: number; hits: { uri: string }[] };
    assert.equal(found.total, 200);
    assert.deepEqual(found.hits.map((hit) => hit.uri).sort(), [...created.keys()].sort());
  });

  test("200 concurrent creates of one URI: exactly one 201, 199 × 409", async (service) => {
    const uri = uniqueItemUri("same");
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        service.fetch(`/api/item?${COLLECTION_QUERY}`, {
          method: "PUT",
          headers: { "Content-Type": "application/ld+json" },
          body: titleBody(uri, `creator ${n}`),
        })),
    );
    const winners = responses.flatMap((response, n) =>
      response.status === 201 ? [{ n, etag: etagOf(response) }] : []
    );
    assert.equal(winners.length, 1, `statuses: ${responses.map((r) => r.status)}`);
    for (const response of responses) {
      if (response.status === 201) await response.body?.cancel();
      else await expectProblem(response, 409, "item-exists");
    }
    const stored = await readServedItem(service.url, uri);
    assert.ok(stored);
    assert.equal(stored.hash, winners[0].etag);
    assert.equal(literalOf(stored.ntriples, TITLE), `creator ${winners[0].n}`);
  });
}
