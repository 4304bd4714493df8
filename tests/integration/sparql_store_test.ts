/**
 * The SPARQL triple store against real stores: each store scenario runs on the
 * environment's Apache Jena Fuseki and on its OpenLink Virtuoso (tests/support/sparql_stores.ts;
 * `[fuseki] …` and `[virtuoso] …`), each ignored where its store is not configured.
 *
 * Fuseki: SERVICE_SPARQL_QUERY_URL, SERVICE_SPARQL_UPDATE_URL and SERVICE_SPARQL_GSP_URL
 * (`scripts/fuseki.sh start && eval "$(scripts/fuseki.sh env)"`); Virtuoso: SERVICE_VIRTUOSO_*
 * (`scripts/virtuoso.sh start && eval "$(scripts/virtuoso.sh env)"`). The crash test starts
 * its own TDB2 Fuseki through the same script. The first tests need no store: they pin the
 * HTTP policy (auth, retries, error mapping) against a small local HTTP server and the text
 * encodings on their own.
 */
import { strict as assert } from "node:assert";
import { DataFactory, Parser } from "n3";
import type { Quad } from "n3";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";
import {
  SparqlTripleStore,
  type SparqlTripleStoreConfig,
} from "../../src/store_sparql/sparql_triple_store.ts";
import { basicAuthorization } from "../../src/sparql_protocol/client.ts";
import {
  readSmallSparqlJsonResults,
  readSparqlJsonResults,
} from "../../src/sparql_protocol/results_json.ts";
import { iriToSparql, literalToSparql } from "../../src/sparql_protocol/terms.ts";
import type { TripleStore } from "../../src/store/triple_store.ts";
import { canonicalNQuads } from "../support/rdf_fixtures.ts";
import { freePort } from "../support/ports.ts";
import { FusekiInstance, type SparqlEndpoints } from "../support/fuseki.ts";
import { SPARQL_STORE_DEFAULTS } from "../support/config_defaults.ts";
import {
  askStore,
  openCheckedStore,
  sparqlStoreTargets,
  sparqlStoreTests,
  type StoreEndpoints,
} from "../support/sparql_stores.ts";

/** The environment's Fuseki: the crash test runs only where `scripts/fuseki.sh` can. */
const fuseki = sparqlStoreTargets().find((target) => target.label === "fuseki")!.endpoints;

/** Unique per run, so runs against a long-lived store never see each other's data. */
const RUN = `https://test.example.org/sparql-store/${crypto.randomUUID()}`;
const EX = "https://ex.example.org/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const { namedNode, literal, quad } = DataFactory;

interface OpenStore {
  store: SparqlTripleStore;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A store on endpoints that are not a configured store (a fake, an own instance): unchecked. */
function openStore(
  overrides: Partial<SparqlTripleStoreConfig>,
  target: SparqlEndpoints,
): OpenStore {
  return disposable(
    new SparqlTripleStore({
      ...SPARQL_STORE_DEFAULTS,
      ...target,
      timeoutMs: 60_000,
      retries: 2,
      ...overrides,
    }),
  );
}

/** A store on one of the targets, after its capability check (as the service starts it). */
async function openChecked(
  endpoints: StoreEndpoints,
  overrides: Partial<SparqlTripleStoreConfig> = {},
): Promise<OpenStore> {
  return disposable(await openCheckedStore(endpoints, overrides));
}

function disposable(store: SparqlTripleStore): OpenStore {
  return {
    store,
    async [Symbol.asyncDispose]() {
      await store.close();
    },
  };
}

function turtle(text: string): Quad[] {
  return new Parser({ format: "Turtle" }).parse(text);
}

/**
 * RDFC-1.0's canonical form, tags in lower case as canonical N-Quads has them: a store may
 * give a tag back in another case (Fuseki writes BCP 47's usual case, Virtuoso lower case),
 * the same tag to RDF.
 */
async function canonical(quads: Quad[]): Promise<string> {
  return await canonicalNQuads(quads);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The item's triples as one read returns them. */
async function readQuads(store: TripleStore, collection: string, uri: string): Promise<Quad[]> {
  return await collect((await store.readItem(collection, uri)).quads);
}

async function assertProblem(work: Promise<unknown>, status: number, slug: string) {
  await assert.rejects(work, (thrown: unknown) => {
    const error = asProblem(thrown);
    assert.ok(error instanceof ProblemError, `expected a ProblemError, got ${thrown}`);
    assert.equal(error.slug, slug, error.message);
    assert.equal(error.status, status, error.message);
    return true;
  });
}

/**
 * Index outbox entries of `uri` in `metadataGraph`, asked of the store directly: the
 * store's own `query()` refuses to name its metadata graph.
 */
async function outboxCount(
  endpoints: StoreEndpoints,
  metadataGraph: string,
  uri: string,
): Promise<number> {
  const answer = await askStore(
    endpoints,
    `SELECT (COUNT(?entry) AS ?n) WHERE {
    GRAPH <${metadataGraph}> { ?entry <urn:rdf-content-service:outboxItem> <${uri}> } }`,
  );
  return Number(answer.results.bindings[0]?.n?.value);
}

sparqlStoreTests("the store's query() refuses to name its metadata graph", async (endpoints) => {
  await using opened = await openChecked(endpoints, { metadataGraph: "urn:x:test-meta" });
  await assert.rejects(
    opened.store.query("SELECT * { GRAPH <urn:x:test-meta> { ?s ?p ?o } }", {
      limit: 1,
      timeoutMs: 10_000,
    }),
    (error: unknown) => asProblem(error)?.slug === "reserved-graph",
  );
});

const same = (quads: Quad[]) => quads;

/** XSD datatypes whose literals a store may keep as values, and each one's value as text. */
const VALUE_OF: Record<string, (lexical: string) => string> = {
  [`${XSD}integer`]: (lexical) => String(Number(lexical)),
  [`${XSD}decimal`]: (lexical) => String(Number(lexical)),
  [`${XSD}double`]: (lexical) => String(Number(lexical)),
  [`${XSD}boolean`]: (lexical) => String(lexical === "1" || lexical === "true"),
  [`${XSD}dateTime`]: (lexical) => new Date(lexical).toISOString(),
};

/** The quads with each such literal written as its value: "042" and "42" alike. */
function valueForms(quads: Quad[]): Quad[] {
  return quads.map((q) => {
    const value = q.object.termType === "Literal" && VALUE_OF[q.object.datatype.value];
    if (!value) return q;
    return quad(q.subject, q.predicate, literal(value(q.object.value), q.object.datatype), q.graph);
  });
}

/** Triples of one subject must be adjacent: no subject may come back after another. */
function assertSubjectsAdjacent(quads: Quad[]): void {
  const finished = new Set<string>();
  let current: string | undefined;
  for (const q of quads) {
    const subject = `${q.subject.termType}:${q.subject.value}`;
    if (subject === current) continue;
    assert.ok(!finished.has(subject), `triples of ${subject} are not adjacent`);
    if (current !== undefined) finished.add(current);
    current = subject;
  }
}

// --- Without a store: encodings and the HTTP policy -----------------------------------------

Deno.test("SPARQL terms: literals and IRIs are written exactly and unambiguously", () => {
  assert.equal(
    literalToSparql(literal('say "hi"\nC:\\u0041\r')),
    '"say \\"hi\\"\\nC:\\\\u0041\\r"',
  );
  assert.equal(literalToSparql(literal("chat", "fr-CA")), '"chat"@fr-ca'); // N3.js lower-cases
  assert.equal(
    literalToSparql(literal("042", namedNode(`${XSD}integer`))),
    `"042"^^<${XSD}integer>`,
  );
  assert.equal(literalToSparql(literal("plain", namedNode(`${XSD}string`))), '"plain"');
  assert.equal(iriToSparql("https://ex.org/a?b=c#d"), "<https://ex.org/a?b=c#d>");
  for (const bad of ["https://ex.org/a b", "https://ex.org/<a>", "urn:a\\b", ""]) {
    assert.throws(() => iriToSparql(bad), (thrown: unknown) => {
      const error = asProblem(thrown);
      return error instanceof ProblemError && error.status === 400 && error.slug === "invalid-iri";
    });
  }
});

Deno.test("SPARQL JSON results: read incrementally, whatever the chunking", async () => {
  const document = JSON.stringify({
    results: {
      bindings: [
        { s: { type: "uri", value: "urn:a" }, o: { type: "literal", value: 'x "}]{[' } },
        {
          s: { type: "bnode", value: "b0" },
          o: { type: "literal", value: "5", datatype: `${XSD}int` },
        },
        {
          s: { type: "uri", value: "urn:c" },
          o: { type: "literal", value: "é", "xml:lang": "fr" },
        },
      ],
    },
    head: { vars: ["s", "o"] },
  });
  const chunked = (size: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(document);
        for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
        controller.close();
      },
    });
  for (const size of [1, 3, 7, 1000]) {
    const all = await readSparqlJsonResults(chunked(size), 10);
    assert.equal(all.kind, "bindings");
    if (all.kind !== "bindings") continue;
    assert.deepEqual(all.variables, ["s", "o"]);
    assert.equal(all.truncated, false);
    assert.equal(all.rows.length, 3);
    assert.equal(all.rows[0].get("o")?.value, 'x "}]{[');
    assert.equal(all.rows[1].get("s")?.termType, "BlankNode");
    assert.equal(all.rows[1].get("o")?.id, `"5"^^${XSD}int`);
    assert.equal(all.rows[2].get("o")?.id, '"é"@fr');
    const cut = await readSparqlJsonResults(chunked(size), 2);
    assert.equal(cut.kind === "bindings" && cut.truncated, true);
    assert.equal(cut.kind === "bindings" && cut.rows.length, 2);
  }
  const ask = await readSparqlJsonResults(
    new Response('{ "head": {}, "boolean": false }').body!,
    10,
  );
  assert.deepEqual(ask, { kind: "boolean", value: false });
  await assertProblem(
    readSparqlJsonResults(new Response('{"head": {').body!, 10),
    502,
    "store-error",
  );
});

Deno.test("SPARQL JSON look-ups: read whole, same terms, bounded in size", async () => {
  const document = JSON.stringify({
    head: { vars: ["s", "o"] },
    results: {
      bindings: [
        {
          s: { type: "bnode", value: "b0" },
          o: { type: "literal", value: "5", datatype: `${XSD}int` },
        },
        { o: { type: "literal", value: "é", "xml:lang": "fr" } },
      ],
    },
  });
  const body = (text: string) => new Response(text).body!;
  const read = await readSmallSparqlJsonResults(body(document), 1024);
  assert.equal(read.kind, "bindings");
  if (read.kind === "bindings") {
    assert.deepEqual(read.variables, ["s", "o"]);
    assert.equal(read.rows[0].get("s")?.termType, "BlankNode");
    assert.equal(read.rows[0].get("o")?.id, `"5"^^${XSD}int`);
    assert.equal(read.rows[1].has("s"), false);
    assert.equal(read.rows[1].get("o")?.id, '"é"@fr');
  }
  assert.deepEqual(
    await readSmallSparqlJsonResults(body('{ "head": {}, "boolean": true }'), 1024),
    { kind: "boolean", value: true },
  );
  for (
    const bad of [
      document,
      '{"head": {',
      "[]",
      '{"head": {}}',
      '{"results": {"bindings": [1]}}',
      '{"results": {"bindings": [{"s": null}]}}',
    ]
  ) {
    // The first is refused for its size (limit below its length), the rest for their shape.
    await assertProblem(readSmallSparqlJsonResults(body(bad), 200), 502, "store-error");
  }
});

Deno.test("SPARQL client policy: auth header, retries for reads (also after a deadlock) and transient refusals of guarded writes, error mapping", async () => {
  assert.equal(basicAuthorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  assert.equal(basicAuthorization("jürgen", "pä"), `Basic ${btoa("j\xc3\xbcrgen:p\xc3\xa4")}`);

  const seen: { path: string; authorization: string | null; body: string }[] = [];
  let answer = (_path: string): Response | Promise<Response> =>
    new Response("down", { status: 503 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    const body = await request.text();
    seen.push({ path, authorization: request.headers.get("Authorization"), body });
    return answer(path);
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const fake: SparqlEndpoints = {
    queryUrl: `${base}/query`,
    updateUrl: `${base}/update`,
    graphStoreUrl: `${base}/data`,
    username: "svc",
    password: "pw",
  };
  try {
    await using open = openStore({ retries: 2, timeoutMs: 2000 }, fake);
    const { store } = open;
    await assertProblem(store.getItem(`${RUN}/c`, `${RUN}/i`), 503, "store-unavailable");
    assert.equal(seen.length, 3, "a read is tried 1 + retries times");
    assert.ok(seen.every((r) => r.authorization === basicAuthorization("svc", "pw")));

    // The collection's feed head is made once, before its first write
    // (sparql_change_feed.ts): made here, so that what follows counts the write's requests.
    answer = () => new Response(null, { status: 204 });
    await store.changes.headReady(`${RUN}/c`);
    answer = () => new Response("down", { status: 503 });
    seen.length = 0;
    const write = { collection: `${RUN}/c`, uri: `${RUN}/i`, quads: [], hash: "h" };
    await assertProblem(store.createItem(write), 503, "store-unavailable");
    // A guarded write refused with 503 is sent again as it was (same receipt: a second
    // application is harmless), a few times with backoff, then fails.
    assert.ok(seen.length > 1 && seen.length <= 6, `tried ${seen.length} times`);
    assert.ok(seen.every((r) => r.path === "/update" && r.body === seen[0].body));
    // The outbox entry travels in the update itself: applied or not, it goes with the write.
    assert.match(seen[0].body, /rcs:outboxItem <[^>]*\/i>/, "the update carries its outbox entry");

    seen.length = 0;
    answer = () => new Response("Error 500: something else", { status: 500 });
    await assertProblem(store.createItem(write), 502, "store-error");
    assert.equal(seen.length, 1, "a refusal that is not transient is not retried");

    seen.length = 0;
    let deadlocks = 1;
    answer = (path) => {
      if (path === "/update" && deadlocks-- > 0) {
        return new Response("Virtuoso 40001 Error SR172: Transaction deadlocked", { status: 500 });
      }
      if (path === "/update") return new Response("");
      return Response.json({ head: { vars: [] }, results: { bindings: [] } });
    };
    await assertProblem(store.createItem(write), 409, "item-exists");
    // No receipt and no record of the collection: the IRI's name is taken (so the fake's
    // answer says), so the create is tried once more, under the key derived from collection
    // and IRI: a second update and receipt query.
    assert.deepEqual(
      seen.map((r) => r.path),
      ["/update", "/update", "/query", "/update", "/query"],
      "a deadlocked update is retried, then its receipt is read",
    );

    // Deadlocked again and again (a store under a steady write load): past the first few
    // tries, a guarded update is tried for as long as its timeout lasts, not a fixed count.
    {
      await using patient = openStore({ retries: 2, timeoutMs: 20_000 }, fake);
      answer = () => new Response(null, { status: 204 });
      await patient.store.changes.headReady(`${RUN}/c`); // its own store: its own first write
      seen.length = 0;
      deadlocks = 7;
      answer = (path) => {
        if (path === "/update" && deadlocks-- > 0) {
          return new Response("Virtuoso 40001 Error SR172: Transaction deadlocked", {
            status: 500,
          });
        }
        if (path === "/update") return new Response("");
        return Response.json({ head: { vars: [] }, results: { bindings: [] } });
      };
      await assertProblem(patient.store.createItem(write), 409, "item-exists");
    }
    assert.deepEqual(
      seen.slice(0, 9).map((r) => r.path),
      [...Array(8).fill("/update"), "/query"],
      "7 deadlocks in a row within the timeout: the eighth try is applied",
    );

    seen.length = 0;
    deadlocks = 1;
    answer = (path) => {
      if (path === "/query" && deadlocks-- > 0) {
        return new Response("Virtuoso 40001 Error SR172: Transaction deadlocked", { status: 500 });
      }
      return Response.json({ head: { vars: [] }, results: { bindings: [] } });
    };
    assert.equal(await store.getItem(`${RUN}/c`, `${RUN}/i`), undefined);
    assert.deepEqual(
      seen.map((r) => r.path),
      ["/query", "/query"],
      "a read aborted by a deadlock is tried again",
    );

    answer = () => new Response("Error 400: Parse error: <urn:x> line 1", { status: 400 });
    await assert.rejects(store.createItem(write), (thrown: unknown) => {
      const error = asProblem(thrown);
      assert.ok(error instanceof ProblemError);
      assert.equal(error.status, 502);
      assert.equal(error.slug, "store-error");
      assert.match(error.message, /HTTP 400: Error 400: Parse error: <urn:x> line 1/);
      return true;
    });

    answer = () => new Promise((resolve) => setTimeout(() => resolve(new Response("{}")), 1500));
    await assertProblem(
      store.query("SELECT * { ?s ?p ?o }", { limit: 10, timeoutMs: 200 }),
      504,
      "query-timeout",
    );
  } finally {
    await server.shutdown();
  }

  // Nothing listens on this port: unreachable is 503 with the network error as the cause.
  const closed = `http://127.0.0.1:${freePort()}`;
  await using unreachable = openStore({ retries: 0 }, {
    queryUrl: `${closed}/q`,
    updateUrl: `${closed}/u`,
    graphStoreUrl: `${closed}/d`,
  });
  await assert.rejects(unreachable.store.getItem("urn:c", "urn:i"), (thrown: unknown) => {
    assert.ok(asProblem(thrown)?.slug === "store-unavailable");
    assert.ok(
      thrown instanceof Error && thrown.cause instanceof Error,
      "the network error is kept as the cause",
    );
    return true;
  });
  const health = await unreachable.store.health();
  assert.equal(health.ok, false);
});

// --- Against each store ----------------------------------------------------------------------

sparqlStoreTests("create, read, replace and delete with 404, 409 and 412", async (endpoints) => {
  // A metadata graph of its own: the outbox entries and receipts below are counted in it.
  const meta = `${RUN}/crud/meta`;
  await using open = await openChecked(endpoints, { metadataGraph: meta });
  const { store } = open;
  const collection = `${RUN}/crud`;
  const uri = `${RUN}/crud/item-1`;
  const first = turtle(`<${uri}> <${EX}title> "First" ; <${EX}part> [ <${EX}n> 1 ] .`);

  assert.equal(await store.getItem(collection, uri), undefined);
  await assertProblem(readQuads(store, collection, uri), 404, "item-not-found");

  const created = await store.createItem({ collection, uri, quads: first, hash: "h1" });
  assert.equal(created.hash, "h1");
  assert.equal(created.tripleCount, 3);
  assert.equal(created.created, created.modified);
  assert.deepEqual(await store.getItem(collection, uri), created);
  assert.equal(await store.getItem(`${RUN}/other`, uri), undefined, "scoped by collection");
  assert.equal(
    await canonical(await readQuads(store, collection, uri)),
    await canonical(first),
  );
  assert.deepEqual((await store.readItem(collection, uri)).record, created, "read with its record");
  await assertProblem(store.readItem(`${RUN}/other`, uri), 404, "item-not-found");

  await assertProblem(
    store.createItem({ collection, uri, quads: first, hash: "h1" }),
    409,
    "item-exists",
  );
  // The same IRI in another collection is another item (sparql_item_keys_test.ts).

  const second = turtle(`<${uri}> <${EX}title> "Second" .`);
  await assertProblem(
    store.replaceItem({ collection, uri, quads: second, hash: "h2" }, { ifMatch: "stale" }),
    412,
    "precondition-failed",
  );
  await assertProblem(
    store.replaceItem({ collection: `${RUN}/other`, uri, quads: second, hash: "h2" }),
    404,
    "item-not-found",
  );
  await assertProblem(
    store.replaceItem({ collection, uri: `${uri}-missing`, quads: second, hash: "h2" }),
    404,
    "item-not-found",
  );
  assert.equal((await store.getItem(collection, uri))?.hash, "h1", "refused writes change nothing");

  await new Promise((resolve) => setTimeout(resolve, 5));
  const replaced = await store.replaceItem(
    { collection, uri, quads: second, hash: "h2" },
    { ifMatch: "h1" },
  );
  assert.equal(replaced.created, created.created);
  assert.ok(replaced.modified > created.modified);
  assert.deepEqual(await store.getItem(collection, uri), replaced);
  assert.equal(
    await canonical(await readQuads(store, collection, uri)),
    await canonical(second),
  );
  await store.replaceItem({ collection, uri, quads: first, hash: "h3" }); // no If-Match: applies
  assert.equal((await store.getItem(collection, uri))?.tripleCount, 3);

  await assertProblem(
    store.deleteItem(collection, uri, { ifMatch: "h2" }),
    412,
    "precondition-failed",
  );
  await assertProblem(store.deleteItem(`${RUN}/other`, uri), 404, "item-not-found");
  await store.deleteItem(collection, uri, { ifMatch: "h3" });
  assert.equal(await store.getItem(collection, uri), undefined);
  await assertProblem(store.deleteItem(collection, uri), 404, "item-not-found");
  const graphLeft = await store.query(`ASK { GRAPH <${uri}> { ?s ?p ?o } }`, {
    limit: 1,
    timeoutMs: 10_000,
  });
  assert.deepEqual(graphLeft, { kind: "boolean", value: false }, "delete drops the graph");

  // Each applied write (create, two replaces, delete) left one outbox entry in the same
  // update; the six refused ones left none.
  assert.equal(await outboxCount(endpoints, meta, uri), 4);

  // The item can be created again, and the verified receipts are gone once the store closes.
  await store.createItem({ collection, uri, quads: second, hash: "h4" });
  await store.close();
  const receipts = await askStore(
    endpoints,
    `ASK { GRAPH <${meta}> { ?r <urn:rdf-content-service:receiptFor> <${uri}> } }`,
  );
  assert.equal(receipts.boolean, false);
});

sparqlStoreTests("an item URI holding $& and $1 names its own graph", async (endpoints) => {
  await using open = await openChecked(endpoints);
  const { store } = open;
  const collection = `${RUN}/dollar`;
  const uri = `https://test.example.org/id/a$&b$1c$$d`;
  await store.createItem({
    collection,
    uri,
    quads: turtle(`<${uri}> <${EX}title> "Dollar" .`),
    hash: "h",
  });
  const [graph] = await store.readItemGraphs(collection, [uri]);
  assert.equal(graph.record.uri, uri);
  assert.deepEqual(graph.quads.map((q) => q.subject.value), [uri]);
  await store.deleteItem(collection, uri);
});

sparqlStoreTests(
  "literals, blank nodes and unicode round-trip isomorphically",
  async (endpoints) => {
    await using open = await openChecked(endpoints);
    const { store } = open;
    const collection = `${RUN}/terms`;
    const uri = `${RUN}/terms/item`;
    const quads = turtle(`
    @prefix ex: <${EX}> .
    @prefix xsd: <${XSD}> .
    <${uri}> ex:quote "He said \\"hi\\"\\nthen left\\r\\n\\tand a back\\\\slash \\\\u0041" ;
      ex:long """line one
line "two" ending with a quote\\"""" ;
      ex:unicode "Grüße 🌍 漢字 \\u00e9 \\U0001F600" , "chat"@fr-CA , "colour"@en-GB ;
      ex:typed "42"^^xsd:integer , "2024-02-29"^^xsd:date , "3.5e0"^^xsd:double ,
        "x y"^^<${EX}dt> , ""^^xsd:string , "true"^^xsd:boolean ;
      # Non-canonical lexical forms survive on a store that keeps them, or the ETag would not
      # match what is served; on one that stores them as values (below) their values survive.
      ex:lexical "042"^^xsd:integer , "1.50"^^xsd:decimal , "1"^^xsd:boolean ,
        "2024-01-01T00:00:00.000Z"^^xsd:dateTime ;
      ex:iri <${EX}a?b=c&d=%20#frag> , <urn:isbn:978-3-16-148410-0> ;
      ex:blank [ ex:nested [ ex:v "deep" ] ] , _:shared , _:other .
    _:shared ex:self _:shared ; ex:peer _:other .
    _:other ex:peer _:shared ; ex:v "same shape" .
  `);
    await store.createItem({ collection, uri, quads, hash: "terms" });
    const read = await readQuads(store, collection, uri);
    // A store that stores numbers, booleans and times as values (TDB2, Virtuoso: "042" comes
    // back "42"; the capability check finds out) serves its own forms of them, and the store
    // hashes what it serves, so the ETag holds. There those are compared by value; every
    // other term, exactly.
    const asStored = (await store.checkCapabilities()).rewritesLiterals ? valueForms : same;
    assert.equal(read.length, quads.length);
    assert.equal(await canonical(asStored(read)), await canonical(asStored(quads)));
    assertSubjectsAdjacent(read);
  },
);

sparqlStoreTests(
  "a 20k-triple item is written in one update and read back grouped",
  async (endpoints) => {
    await using open = await openChecked(endpoints);
    const { store } = open;
    const collection = `${RUN}/large`;
    const uri = `${RUN}/large/item`;
    const quads: Quad[] = [];
    // Predicate-major order interleaves subjects, so grouping on read is really exercised.
    for (let p = 0; p < 10; p++) {
      for (let s = 0; s < 2000; s++) {
        quads.push(
          quad(namedNode(`${uri}#s${s}`), namedNode(`${EX}p${p}`), literal(`v ${s}.${p}`)),
        );
      }
    }
    const writeStarted = performance.now();
    const record = await store.createItem({ collection, uri, quads, hash: "large" });
    const writeMs = performance.now() - writeStarted;
    assert.equal(record.tripleCount, 20_000);
    const readStarted = performance.now();
    const read = await readQuads(store, collection, uri);
    const readMs = performance.now() - readStarted;
    console.log(`20k triples: create ${writeMs.toFixed(0)} ms, read ${readMs.toFixed(0)} ms`);
    assert.equal(read.length, 20_000);
    assertSubjectsAdjacent(read);
    const written = new Set(quads.map((q) => `${q.subject.id} ${q.predicate.id} ${q.object.id}`));
    for (const q of read) {
      assert.ok(
        written.has(`${q.subject.id} ${q.predicate.id} ${q.object.id}`),
      );
    }

    const replaced = await store.replaceItem({
      collection,
      uri,
      quads: quads.slice(0, 5),
      hash: "small",
    });
    assert.equal(replaced.tripleCount, 5);
    assert.equal((await readQuads(store, collection, uri)).length, 5);
  },
);

sparqlStoreTests(
  "listItems in URI order and collectionQuads of one collection",
  async (endpoints) => {
    await using open = await openChecked(endpoints);
    const { store } = open;
    const collection = `${RUN}/list`;
    const names = ["c", "a", "b", "a-2"];
    for (const name of names) {
      const uri = `${RUN}/list/${name}`;
      await store.createItem({
        collection,
        uri,
        quads: turtle(`<${uri}> <${EX}name> "${name}" ; <${EX}has> [ <${EX}of> "${name}" ] .`),
        hash: `hash-${name}`,
      });
    }
    await store.createItem({
      collection: `${RUN}/list-other`,
      uri: `${RUN}/list/elsewhere`,
      quads: turtle(`<${RUN}/list/elsewhere> <${EX}name> "elsewhere" .`),
      hash: "x",
    });
    const listed = await collect(store.listItems(collection));
    assert.deepEqual(listed.map((r) => r.uri), [...names].sort().map((n) => `${RUN}/list/${n}`));
    assert.deepEqual(listed.map((r) => r.hash), ["a", "a-2", "b", "c"].map((n) => `hash-${n}`));
    assert.ok(listed.every((r) => r.collection === collection && r.tripleCount === 3));
    assert.deepEqual(await collect(store.listItems(`${RUN}/list-empty`)), []);

    const all = await collect(store.collectionQuads(collection));
    assert.equal(all.length, 12, "four items of three triples; the other collection excluded");
    const blankSubjects = new Set(
      all.filter((q) => q.subject.termType === "BlankNode").map((q) => q.subject.value),
    );
    assert.equal(blankSubjects.size, 4, "each item's blank node stays distinct");

    // A caller that stops early leaves nothing open (the test sanitizers would notice).
    for await (const _ of store.listItems(collection)) break;
    for await (const _ of store.collectionQuads(collection)) break;
  },
);

sparqlStoreTests(
  "query: SELECT, ASK and CONSTRUCT with truncation; updates refused",
  async (endpoints, target) => {
    await using open = await openChecked(endpoints);
    const { store } = open;
    const collection = `${RUN}/query`;
    const p = `${RUN}/query#p`;
    for (let i = 0; i < 3; i++) {
      const uri = `${RUN}/query/item-${i}`;
      const body = [0, 1, 2, 3, 4].map((j) => `<${uri}> <${p}> ${i * 10 + j} .`).join("\n");
      await store.createItem({ collection, uri, quads: turtle(body), hash: `q${i}` });
    }
    const options = { limit: 100, timeoutMs: 10_000 };
    const select = `SELECT ?g ?o WHERE { GRAPH ?g { ?s <${p}> ?o } } ORDER BY ?o`;
    const all = await store.query(select, options);
    assert.equal(all.kind, "bindings");
    if (all.kind === "bindings") {
      assert.deepEqual(all.variables, ["g", "o"]);
      assert.equal(all.truncated, false);
      assert.deepEqual(all.rows.map((r) => Number(r.get("o")?.value)), [
        0,
        1,
        2,
        3,
        4,
        10,
        11,
        12,
        13,
        14,
        20,
        21,
        22,
        23,
        24,
      ]);
      assert.equal(all.rows[0].get("g")?.value, `${RUN}/query/item-0`);
      assert.equal(all.rows[0].get("o")?.id, `"0"^^${XSD}integer`);
    }
    const cut = await store.query(select, { limit: 4, timeoutMs: 10_000 });
    assert.ok(cut.kind === "bindings" && cut.truncated && cut.rows.length === 4);
    const exact = await store.query(select, { limit: 15, timeoutMs: 10_000 });
    assert.ok(exact.kind === "bindings" && !exact.truncated && exact.rows.length === 15);

    assert.deepEqual(await store.query(`ASK { GRAPH ?g { ?s <${p}> 24 } }`, options), {
      kind: "boolean",
      value: true,
    });
    assert.deepEqual(await store.query(`ASK { GRAPH ?g { ?s <${p}> 99 } }`, options), {
      kind: "boolean",
      value: false,
    });

    const construct = `CONSTRUCT { ?s <${p}> ?o } WHERE { GRAPH ?g { ?s <${p}> ?o } }`;
    const quads = await store.query(construct, options);
    assert.ok(quads.kind === "quads" && quads.quads.length === 15 && !quads.truncated);
    const fewer = await store.query(construct, { limit: 5, timeoutMs: 10_000 });
    assert.ok(fewer.kind === "quads" && fewer.quads.length === 5 && fewer.truncated);

    // With the union of the named graphs as default graph, GRAPH-free queries see the items
    // (how a query asks for that union is the store's: sparql_stores.ts).
    await using union = await openChecked(endpoints, {
      queryDefaultGraph: target.unionDefaultGraph,
    });
    const count = await union.store.query(
      `SELECT (COUNT(*) AS ?n) WHERE { ?s <${p}> ?o }`,
      options,
    );
    assert.ok(count.kind === "bindings");
    assert.equal(count.rows[0].get("n")?.value, "15");

    await assertProblem(
      store.query(`INSERT DATA { <${RUN}/x> <${p}> 1 }`, options),
      400,
      "sparql-update-refused",
    );
    await assertProblem(store.query("SELECT * WHERE { ?s ", options), 400, "invalid-sparql");
    assert.equal((await store.health()).ok, true);
  },
);

sparqlStoreTests(
  "concurrent writers: exactly one create and one conditional replace win",
  async (endpoints) => {
    const collection = `${RUN}/race`;
    const uri = `${RUN}/race/item`;
    // Blank nodes would be duplicated by a double insert, so the triple count shows it.
    const quads = turtle(`<${uri}> <${EX}has> [ <${EX}v> 1 ] , [ <${EX}v> 2 ] .`);
    const stores = await Promise.all(Array.from({ length: 5 }, () => openChecked(endpoints)));
    try {
      const creates = await Promise.allSettled(
        stores.map((s, i) => s.store.createItem({ collection, uri, quads, hash: `race-${i}` })),
      );
      assert.equal(creates.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of creates) {
        if (r.status === "rejected") assert.equal(asProblem(r.reason)?.status, 409);
      }
      const winner = await stores[0].store.getItem(collection, uri);
      assert.equal(winner?.tripleCount, 4);
      assert.equal((await readQuads(stores[0].store, collection, uri)).length, 4);

      const replaces = await Promise.allSettled(
        stores.map((s, i) =>
          s.store.replaceItem({ collection, uri, quads, hash: `next-${i}` }, {
            ifMatch: winner!.hash,
          })
        ),
      );
      assert.equal(replaces.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of replaces) {
        if (r.status === "rejected") assert.equal(asProblem(r.reason)?.status, 412);
      }
      assert.equal((await readQuads(stores[0].store, collection, uri)).length, 4);
    } finally {
      for (const s of stores) await s[Symbol.asyncDispose]();
    }
  },
);

/** Big enough that killing the server lands inside a request, small enough for 2 cores. */
const CRASH_ITEM_TRIPLES = 15_000;

// Fuseki only: it starts, kills and restarts a Fuseki of its own (scripts/fuseki.sh) to test
// Fuseki's own basic auth and a crash of its TDB2 dataset, not a behaviour of the store.
Deno.test({
  name: "[fuseki] a TDB2 Fuseki with basic auth: credentials, SIGKILL during writes, recovery",
  ignore: !fuseki,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "rcs-fuseki-" });
    const passwdFile = `${dir}/passwd`;
    await Deno.writeTextFile(passwdFile, "tester: s3cret-pw\n");
    const instance = new FusekiInstance({
      port: freePort(),
      runDir: `${dir}/run`,
      tdb2Dir: `${dir}/tdb2`,
      passwdFile,
    });
    const credentials = { ...instance.endpoints, username: "tester", password: "s3cret-pw" };
    try {
      await instance.start();
      const collection = `${RUN}/crash`;
      {
        await using anonymous = openStore({}, instance.endpoints);
        await assertProblem(anonymous.store.getItem(collection, `${RUN}/x`), 502, "store-error");
        await using wrong = openStore({}, { ...credentials, password: "nope" });
        await assertProblem(wrong.store.getItem(collection, `${RUN}/x`), 502, "store-error");
      }

      await using open = openStore({ timeoutMs: 60_000 }, credentials);
      const { store } = open;
      const bigItem = (n: number) => {
        const uri = `${RUN}/crash/item-${n}`;
        const quads: Quad[] = [];
        for (let i = 0; i < CRASH_ITEM_TRIPLES; i++) {
          quads.push(
            quad(namedNode(`${uri}#s${i % 500}`), namedNode(`${EX}p${i}`), literal(`value ${i}`)),
          );
        }
        return { collection, uri, quads, hash: `crash-${n}` };
      };
      await store.createItem(bigItem(0));

      // Writes keep going while the server is killed: the one in flight and every later one
      // must fail as 503, and none may leave part of an item behind.
      const outcomes: { uri: string; ok: boolean; problem?: ProblemError }[] = [];
      let writing: string | undefined;
      const writer = (async () => {
        for (let n = 1; n <= 6; n++) {
          const write = bigItem(n);
          try {
            writing = write.uri;
            await store.createItem(write);
            outcomes.push({ uri: write.uri, ok: true });
          } catch (error) {
            outcomes.push({ uri: write.uri, ok: false, problem: asProblem(error) });
          } finally {
            writing = undefined;
          }
        }
      })();
      while (outcomes.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 150)); // into the next request
      const inFlight = writing;
      await instance.kill();
      await writer;
      assert.ok(inFlight, "a write was under way when the server died");
      console.log(
        `killed during ${inFlight}; ${outcomes.filter((o) => o.ok).length} writes succeeded, ` +
          `${outcomes.filter((o) => !o.ok).length} failed`,
      );

      const failures = outcomes.filter((o) => !o.ok);
      assert.ok(failures.length >= 1, "writes after the kill fail");
      for (const failure of failures) {
        assert.ok(failure.problem instanceof ProblemError, String(failure.problem));
        assert.equal(failure.problem.status, 503, failure.problem.message);
        // Sent before the kill: outcome unknown; refused after it: unavailable
        // (tests/faults/sparql_outcome_unknown_test.ts pins the first down).
        assert.ok(
          ["store-unavailable", "write-outcome-unknown"].includes(failure.problem.slug),
          failure.problem.message,
        );
      }
      assert.equal((await store.health()).ok, false);

      await instance.start();
      for (const { uri } of outcomes) {
        const record = await store.getItem(collection, uri);
        const graph = await store.query(
          `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${uri}> { ?s ?p ?o } }`,
          { limit: 1, timeoutMs: 30_000 },
        );
        const stored = graph.kind === "bindings" ? Number(graph.rows[0].get("n")?.value) : -1;
        // All or nothing: an item with metadata has its whole graph, one without has none.
        assert.equal(
          stored,
          record ? CRASH_ITEM_TRIPLES : 0,
          `${uri}: ${stored} triples, record ${!!record}`,
        );
        if (record) assert.equal(record.tripleCount, CRASH_ITEM_TRIPLES);
      }
      assert.equal(
        (await store.getItem(collection, `${RUN}/crash/item-0`))?.tripleCount,
        CRASH_ITEM_TRIPLES,
      );

      const after = bigItem(100);
      await store.createItem(after);
      assert.equal(
        (await readQuads(store, collection, after.uri)).length,
        CRASH_ITEM_TRIPLES,
      );
      assert.equal((await store.health()).ok, true);
    } finally {
      await instance.stop().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  },
});
