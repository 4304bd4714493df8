/**
 * Item CRUD over real HTTP, on every store backend: success paths, ETags and every error
 * path docs/api.md lists for items and parameters.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  storeBackends,
  storeTest,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const DCT = "http://purl.org/dc/terms/";
const C = encodeURIComponent(DEMO_COLLECTION);

function jsonld(uri: string, title: string) {
  return JSON.stringify({ "@id": uri, [`${DCT}title`]: title });
}

function put(service: TestService, query: string, body: string, type = "application/ld+json") {
  return service.fetch(`/api/item?${query}`, {
    method: "PUT",
    headers: { "Content-Type": type },
    body,
  });
}

for (const backend of storeBackends({ allStores: true })) {
  const suite = (name: string, fn: (service: TestService) => Promise<void>) =>
    storeTest("items", backend, name, fn);
  if (backend.skip) console.log(`items API suite on ${backend.name} skipped: ${backend.skip}`);

  suite("create, read, update and delete an item", async (service) => {
    const uri = uniqueItemUri();
    const created = await put(service, `collection=${C}`, jsonld(uri, "First"));
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), { uri });
    const etag = created.headers.get("etag");
    assert.match(etag ?? "", /^"[0-9a-f]{64}"$/);
    assert.equal(created.headers.get("location"), `/api/item?${itemQuery(uri)}`);

    const read = await service.fetch(`/api/item?${itemQuery(uri)}`);
    assert.equal(read.status, 200);
    assert.match(read.headers.get("content-type") ?? "", /application\/ld\+json/);
    assert.equal(read.headers.get("etag"), etag);
    const document = await read.json();
    assert.equal(JSON.stringify(document).includes("First"), true);

    const notModified = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      headers: { "If-None-Match": etag! },
    });
    assert.equal(notModified.status, 304);
    await notModified.body?.cancel();

    const updated = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      method: "POST",
      headers: { "Content-Type": "text/turtle", "If-Match": etag! },
      body: `<${uri}> <${DCT}title> "Second"@en .`,
    });
    assert.equal(updated.status, 204);
    const newEtag = updated.headers.get("etag");
    assert.notEqual(newEtag, etag);

    const turtle = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      headers: { Accept: "text/turtle" },
    });
    assert.match(turtle.headers.get("content-type") ?? "", /^text\/turtle/);
    const text = await turtle.text();
    assert.match(text, /"Second"@en/);
    assert.doesNotMatch(text, /First/);

    const stale = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      method: "DELETE",
      headers: { "If-Match": etag! },
    });
    await expectProblem(stale, 412, "precondition-failed");
    const deleted = await service.fetch(`/api/item?${itemQuery(uri)}`, { method: "DELETE" });
    assert.equal(deleted.status, 204);
    // Every store keeps history: it remembers the item (tests/api/item_history_test.ts).
    await expectProblem(await service.fetch(`/api/item?${itemQuery(uri)}`), 410, "item-deleted");
  });

  suite("equal graphs get equal ETags whatever the format", async (service) => {
    const a = uniqueItemUri("a");
    const b = uniqueItemUri("b");
    const one = await put(
      service,
      `collection=${C}&item=${encodeURIComponent(a)}`,
      `<${a}> <${DCT}title> "T" ; <${DCT}creator> [ <${DCT}title> "x" ] .`,
      "text/turtle",
    );
    const two = await put(
      service,
      `collection=${C}&item=${encodeURIComponent(b)}`,
      `<${b}> <${DCT}creator> _:z . _:z <${DCT}title> "x" . <${b}> <${DCT}title> "T" .`,
      "application/n-triples",
    );
    assert.equal(one.status, 201);
    assert.equal(two.status, 201);
    assert.notEqual(one.headers.get("etag"), null);
    // Different subjects, so different hashes; the same graph written twice is the same.
    const again = await service.fetch(`/api/item?${itemQuery(a)}`, {
      method: "POST",
      headers: { "Content-Type": "application/n-triples" },
      body: `_:q <${DCT}title> "x" .\n<${a}> <${DCT}creator> _:q .\n<${a}> <${DCT}title> "T" .`,
    });
    assert.equal(again.headers.get("etag"), one.headers.get("etag"));
  });

  suite("URI from the single root, minted for a blank root", async (service) => {
    const uri = uniqueItemUri("root");
    const fromRoot = await put(
      service,
      `collection=${C}`,
      JSON.stringify({
        "@id": uri,
        [`${DCT}hasPart`]: { "@id": `${uri}#part`, [`${DCT}title`]: "p" },
      }),
    );
    assert.equal(fromRoot.status, 201);
    assert.equal((await fromRoot.json()).uri, uri);

    const minted = await put(
      service,
      `collection=${C}`,
      JSON.stringify({ [`${DCT}title`]: "anon" }),
    );
    assert.equal(minted.status, 201);
    const mintedUri = (await minted.json()).uri as string;
    assert.match(mintedUri, /^https:\/\/data\.example\.org\/id\/document\/[0-9a-f-]{36}$/);
    const read = await service.fetch(`/api/item?${itemQuery(mintedUri)}`, {
      headers: { Accept: "application/n-triples" },
    });
    assert.match(await read.text(), new RegExp(`^<${mintedUri}> <${DCT}title> "anon" \\.`, "m"));
  });

  suite("RDF/JSON in and out", async (service) => {
    const uri = uniqueItemUri("rj");
    const body = { [uri]: { [`${DCT}title`]: [{ type: "literal", value: "rj", lang: "en" }] } };
    const created = await put(
      service,
      `collection=${C}`,
      JSON.stringify(body),
      "application/rdf+json",
    );
    assert.equal(created.status, 201);
    const read = await service.fetch(`/api/item?${itemQuery(uri)}`, {
      headers: { Accept: "application/rdf+json" },
    });
    assert.match(read.headers.get("content-type") ?? "", /application\/rdf\+json/);
    assert.deepEqual(await read.json(), body);
  });

  suite("error paths of items and parameters", async (service) => {
    const uri = uniqueItemUri("err");
    await expectProblem(await put(service, "", jsonld(uri, "x")), 400, "missing-parameter");
    await expectProblem(
      await put(service, "collection=not%20an%20iri", jsonld(uri, "x")),
      400,
      "invalid-iri",
    );
    const badItem = await expectProblem(
      await service.fetch(`/api/item?collection=${C}&item=${encodeURIComponent("http://x/<y>")}`),
      400,
      "invalid-iri",
    );
    assert.deepEqual((badItem.errors as { path: string }[])[0].path, "item");
    await expectProblem(
      await put(
        service,
        `collection=${encodeURIComponent("https://nope.example/c")}`,
        jsonld(uri, "x"),
      ),
      404,
      "collection-not-found",
    );
    assert.equal((await put(service, `collection=${C}`, jsonld(uri, "x"))).status, 201);
    await expectProblem(
      await put(service, `collection=${C}`, jsonld(uri, "x")),
      409,
      "item-exists",
    );
    const missing = uniqueItemUri("missing");
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(missing)}`),
      404,
      "item-not-found",
    );
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(missing)}`, {
        method: "POST",
        headers: { "Content-Type": "application/ld+json" },
        body: jsonld(missing, "x"),
      }),
      404,
      "item-not-found",
    );
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(missing)}`, { method: "DELETE" }),
      404,
      "item-not-found",
    );
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(uri)}`, {
        method: "POST",
        headers: { "Content-Type": "application/ld+json" },
        body: jsonld(missing, "describes another item"),
      }),
      400,
      "item-not-described",
    );
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(uri)}`, {
        method: "POST",
        headers: { "Content-Type": "application/ld+json", "If-Match": '"0000"' },
        body: jsonld(uri, "y"),
      }),
      412,
      "precondition-failed",
    );
    const twoRoots = await expectProblem(
      await put(
        service,
        `collection=${C}`,
        `<${uniqueItemUri()}> <${DCT}title> "a" . <${uniqueItemUri()}> <${DCT}title> "b" .`,
        "text/turtle",
      ),
      400,
      "several-root-subjects",
    );
    assert.equal((twoRoots.errors as unknown[]).length, 2);
    const a = uniqueItemUri();
    const b = uniqueItemUri();
    await expectProblem(
      await put(
        service,
        `collection=${C}`,
        `<${a}> <${DCT}relation> <${b}> . <${b}> <${DCT}relation> <${a}> .`,
        "text/turtle",
      ),
      400,
      "no-root-subject",
    );
    const syntax = await expectProblem(
      await put(
        service,
        `collection=${C}`,
        `<${a}> <${DCT}title> "ok" .\n<${a}> <${DCT}title> oops .`,
        "text/turtle",
      ),
      400,
      "rdf-syntax",
    );
    assert.match(String(syntax.detail), /line 2/);
    await expectProblem(
      await put(service, `collection=${C}`, "", "text/turtle"),
      400,
      "empty-body",
    );
    await expectProblem(
      await put(service, `collection=${C}`, "x", "text/csv"),
      415,
      "unsupported-media-type",
    );
    await expectProblem(
      await put(service, `collection=${C}`, JSON.stringify({ hello: [1] }), "application/json"),
      415,
      "unsupported-media-type",
    );
    await expectProblem(
      await put(
        service,
        `collection=${C}`,
        `<${a}> <${DCT}title> "g" <${b}> .`,
        "application/n-quads",
      ),
      400,
      "named-graphs-not-allowed",
    );
    await expectProblem(
      await service.fetch(`/api/item?${itemQuery(uri)}`, { headers: { Accept: "image/png" } }),
      406,
      "not-acceptable",
    );
    await expectProblem(await service.fetch("/api/nothing-here"), 404, "not-found");
  });

  suite("a body over maxBodyBytes is refused with 413 and nothing is written", async () => {
    const service = await startTestService({
      env: { ...backend.env, SERVICE_HTTP_MAX_BODY: "1000" },
    });
    try {
      const uri = uniqueItemUri("big");
      const big = jsonld(uri, "x".repeat(5000));
      await expectProblem(await put(service, `collection=${C}`, big), 413, "body-too-large");
      // Chunked, so the limit is enforced while reading, not from Content-Length.
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) {
            controller.enqueue(new TextEncoder().encode(" ".repeat(500)));
          }
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      await expectProblem(
        await service.fetch(`/api/item?collection=${C}`, {
          method: "PUT",
          headers: { "Content-Type": "application/ld+json" },
          body: chunks,
        }),
        413,
        "body-too-large",
      );
      await expectProblem(
        await service.fetch(`/api/item?${itemQuery(uri)}`),
        404,
        "item-not-found",
      );
    } finally {
      await service.close();
    }
  });

  suite("every response carries X-Request-Id, echoed when sent", async (service) => {
    const own = await service.fetch("/health", { headers: { "X-Request-Id": "abc-123" } });
    assert.equal(own.headers.get("x-request-id"), "abc-123");
    await own.body?.cancel();
    const error = await service.fetch("/nowhere");
    assert.match(error.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    await error.body?.cancel();
  });

  suite("the same IRI in two collections is two items, each its own graph", async (service) => {
    const other = `https://data.example.org/collection/items-other-${crypto.randomUUID()}`;
    const made = await service.fetch("/api/admin/collections", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        workspace: "https://data.example.org/workspace/demo",
        uri: other,
        label: "Other",
        index: { name: `items-other-${crypto.randomUUID().slice(0, 8)}` },
      }),
    });
    assert.equal(made.status, 201, await made.text());
    const O = encodeURIComponent(other);
    const uri = uniqueItemUri("shared");
    const first = await put(service, `collection=${C}`, jsonld(uri, "In documents"));
    assert.equal(first.status, 201, await first.text());
    const second = await put(service, `collection=${O}`, jsonld(uri, "In other"));
    assert.equal(second.status, 201, await second.text());
    assert.notEqual(second.headers.get("etag"), first.headers.get("etag"));
    const title = async (collection: string) => {
      const response = await service.fetch(`/api/item?${itemQuery(uri, collection)}`, {
        headers: { Accept: "application/n-triples" },
      });
      return response.status === 200
        ? (await response.text()).match(/"([^"]+)"/)?.[1]
        : response.status;
    };
    assert.deepEqual([await title(DEMO_COLLECTION), await title(other)], [
      "In documents",
      "In other",
    ]);
    // Each collection holds the IRI once.
    await expectProblem(
      await put(service, `collection=${O}`, jsonld(uri, "x")),
      409,
      "item-exists",
    );

    // The collections graph tells the two graphs apart by collection and names their item.
    const graphs = async () => {
      const query = `SELECT ?g ?c WHERE { GRAPH <urn:rdf-content-service:collections> {
        ?g <http://purl.org/dc/terms/isPartOf> ?c ; <http://xmlns.com/foaf/0.1/primaryTopic> <${uri}> } }`;
      const response = await service.fetch(`/sparql?${new URLSearchParams({ query })}`, {
        headers: { Accept: "application/sparql-results+json" },
      });
      assert.equal(response.status, 200);
      const rows = (await response.json()).results.bindings as Record<string, { value: string }>[];
      return Object.fromEntries(rows.map((row) => [row.c.value, row.g.value]));
    };
    const both = await graphs();
    assert.deepEqual(Object.keys(both).sort(), [DEMO_COLLECTION, other].sort());
    assert.notEqual(both[DEMO_COLLECTION], both[other]);

    // A write to one leaves the other as it was.
    const updated = await service.fetch(`/api/item?${itemQuery(uri, other)}`, {
      method: "POST",
      headers: { "Content-Type": "application/ld+json", "If-Match": second.headers.get("etag")! },
      body: jsonld(uri, "Other, again"),
    });
    assert.equal(updated.status, 204);
    assert.equal(await title(DEMO_COLLECTION), "In documents");
    const deleted = await service.fetch(`/api/item?${itemQuery(uri)}`, { method: "DELETE" });
    assert.equal(deleted.status, 204);
    assert.deepEqual([await title(DEMO_COLLECTION), await title(other)], [
      410,
      "Other, again",
    ]);
    assert.deepEqual(Object.keys(await graphs()), [other]);

    // The service's own namespace names its graphs: no item may be named there.
    const reserved = await put(
      service,
      `collection=${C}`,
      jsonld("urn:rdf-content-service:item:x:y", "x"),
    );
    await expectProblem(reserved, 400, "invalid-iri");
  });
}
