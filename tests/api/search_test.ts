/**
 * `/api/search` over real HTTP, on every (store, search engine) pair of testBackends(): the
 * embedded ones always, OpenSearch when `SERVICE_OPENSEARCH_URL` is set (`scripts/opensearch.sh
 * start`), the SPARQL store when the `SERVICE_SPARQL_*` URLs are (`scripts/fuseki.sh start`).
 * Items are written through the item API; the outbox worker indexes them.
 */
import { strict as assert } from "node:assert";
import { startTestService, type TestService } from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";
import { deleteIndicesWithPrefix } from "../support/opensearch.ts";
import { type BackendPair, SEARCH_YAML, STORE_YAML, testBackends } from "../support/backends.ts";

const BOOKS = "https://data.example.org/collection/books";
const UNINDEXED = "https://data.example.org/collection/empty";
const GERMAN = "https://data.example.org/collection/german";
const SCHEMA = "https://schema.org/";
const DCT = "http://purl.org/dc/terms/";

/** The search limits default to 50 results here; `SERVICE_ES_MAX_RESULTS` overrides it. */
const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}${SEARCH_YAML}    query:
      maxResultsLimit: \${SERVICE_ES_MAX_RESULTS:50}
      maxWindow: \${SERVICE_ES_MAX_WINDOW:10000}
workspaces:
  - uri: https://data.example.org/workspace/library
    name: Library
    collections:
      - uri: ${BOOKS}
        name: Books
        index: books
        context:
          dct: ${DCT}
          name: ${SCHEMA}name
      - uri: ${UNINDEXED}
        name: Empty
        index: empty
      - uri: ${GERMAN}
        name: German
        index: german
        language: de
`;

async function withService(
  backend: BackendPair,
  env: Record<string, string>,
  fn: (service: TestService) => Promise<void>,
): Promise<void> {
  const allEnv = { ...backend.env(), ...env };
  const service = await startTestService({ yaml: YAML, env: allEnv });
  try {
    await fn(service);
  } finally {
    await service.close();
    const prefix = allEnv.SERVICE_OPENSEARCH_INDEX_PREFIX;
    if (prefix) await deleteIndicesWithPrefix(allEnv.SERVICE_OPENSEARCH_URL, prefix);
  }
}

function bookUri(n: number): string {
  return `https://data.example.org/id/book/${String(n).padStart(3, "0")}`;
}

interface Book {
  n: number;
  name: string;
  creator: string;
  year: number;
  type?: string;
}

async function putBook(service: TestService, book: Book): Promise<void> {
  const body = {
    "@id": bookUri(book.n),
    "@type": book.type ?? `${SCHEMA}Book`,
    [`${SCHEMA}name`]: book.name,
    [`${DCT}creator`]: book.creator,
    [`${SCHEMA}datePublished`]: { "@value": String(book.year), "@type": XSD_INTEGER },
  };
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(BOOKS)}&item=${encodeURIComponent(bookUri(book.n))}`,
    {
      method: "PUT",
      headers: { "Content-Type": "application/ld+json" },
      body: JSON.stringify(body),
    },
  );
  assert.equal(response.status, 201, await response.text());
}

const XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer";

const LIBRARY: Book[] = [
  { n: 1, name: "The quick brown fox", creator: "Aesop", year: 1999 },
  { n: 2, name: "A lazy dog sleeps", creator: "Aesop", year: 2005 },
  { n: 3, name: "Quick thinking", creator: "Kahneman", year: 2011 },
  { n: 4, name: "Fox hunting history", creator: "Smith", year: 1850, type: `${SCHEMA}Article` },
  { n: 5, name: "Gardens", creator: "Smith", year: 2020 },
  { n: 6, name: "Rivers", creator: "Jones", year: 2021 },
  { n: 7, name: "Mountains", creator: "Jones", year: 2022 },
];

/** The search response as docs/api.md fixes it; documents are loosely typed here. */
interface SearchResult {
  total: number;
  from: number;
  size: number;
  clamped: unknown;
  hits: {
    uri: string;
    collection?: string;
    score: number | null;
    document: Record<string, unknown>;
  }[];
}

interface FacetValue {
  value: string | number | boolean;
  count: number;
}

function byCountThenValue(a: FacetValue, b: FacetValue): number {
  return b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}

/**
 * How many of the library's items hold each value of `predicate`, counted with SPARQL over
 * the items' graphs through `/sparql`: what a facet must answer.
 */
async function sparqlCounts(service: TestService, predicate: string): Promise<FacetValue[]> {
  const { backend, sparql } = service.config.service.store;
  const graphs = LIBRARY.map((book) =>
    backend === "sparql" ? sparql.graphTemplate.replaceAll("{item}", bookUri(book.n)) : undefined
  );
  const scope = backend === "sparql"
    ? `VALUES ?g { ${graphs.map((graph) => `<${graph}>`).join(" ")} }`
    : `VALUES ?item { ${LIBRARY.map((book) => `<${bookUri(book.n)}>`).join(" ")} }`;
  const query = `SELECT ?value (COUNT(DISTINCT ?item) AS ?count) WHERE {
    ${scope} GRAPH ?g { ?item ${predicate} ?value } } GROUP BY ?value`;
  const response = await service.fetch(`/sparql?query=${encodeURIComponent(query)}`, {
    headers: { Accept: "application/sparql-results+json" },
  });
  assert.equal(response.status, 200, await response.clone().text());
  const rows = (await response.json()).results.bindings as Record<string, { value: string }>[];
  return rows
    .map((row) => ({ value: row.value.value, count: Number(row.count.value) }))
    .sort(byCountThenValue);
}

async function search(service: TestService, query: string): Promise<SearchResult> {
  const response = await service.fetch(
    `/api/search?collection=${encodeURIComponent(BOOKS)}&${query}`,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

async function withLibrary(
  backend: BackendPair,
  env: Record<string, string>,
  fn: (service: TestService) => Promise<void>,
): Promise<void> {
  await withService(backend, env, async (service) => {
    for (const book of LIBRARY) await putBook(service, book);
    await service.services.deps.indexOutbox.drain();
    await fn(service);
  });
}

for (const backend of testBackends("search-api")) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({
      name: `[search/${backend.name}] ${name}`,
      ignore: backend.ignore,
      sanitizeResources: false,
      sanitizeOps: false,
      fn,
    });

  test("full text, filters, sort and paging over HTTP", () =>
    withLibrary(backend, {}, async (service) => {
      const quick = await search(service, "q=quick");
      assert.equal(quick.total, 2);
      assert.deepEqual(quick.hits.map((hit) => hit.uri).sort(), [
        bookUri(1),
        bookUri(3),
      ]);
      for (const hit of quick.hits) {
        assert.deepEqual(Object.keys(hit), ["uri", "collection", "score", "document"]);
        assert.equal(hit.collection, BOOKS);
        assert.equal(typeof hit.score, "number");
        assert.equal(hit.document.uri, hit.uri);
        assert.equal(hit.document.collection, BOOKS);
      }
      assert.equal(quick.from, 0);
      assert.equal(quick.size, 10);
      assert.equal(quick.clamped, null);
      assert.equal((await search(service, "q=quick%20fox")).total, 1);
      assert.equal((await search(service, "q=unicorn")).total, 0);

      // `name` is a context term; `dct:creator` a CURIE from the context, quoted.
      const fox = await search(service, `filter=name:${encodeURIComponent("Fox hunting history")}`);
      assert.deepEqual(fox.hits.map((hit) => hit.uri), [bookUri(4)]);
      const aesop = await search(service, `filter=${encodeURIComponent('"dct:creator":Aesop')}`);
      assert.equal(aesop.total, 2);
      assert.ok(aesop.hits.every((hit) => hit.score === null));
      // Values may hold colons: split at the first one.
      const articles = await search(
        service,
        `filter=types:${encodeURIComponent(`${SCHEMA}Article`)}`,
      );
      assert.deepEqual(articles.hits.map((hit) => hit.uri), [bookUri(4)]);
      const both = await search(
        service,
        `filter=${encodeURIComponent('"dct:creator":Smith')}&filter=datePublished:2020`,
      );
      assert.deepEqual(both.hits.map((hit) => hit.uri), [bookUri(5)]);

      const newest = await search(service, "sort=datePublished:desc&size=3");
      assert.equal(newest.total, 7);
      assert.deepEqual(
        newest.hits.map((hit) => hit.document.datePublished),
        [2022, 2021, 2020],
      );
      const page = await search(
        service,
        `sort=${encodeURIComponent('"dct:creator":asc')}&sort=datePublished&from=2&size=2`,
      );
      assert.equal(page.from, 2);
      assert.equal(page.size, 2);
      assert.deepEqual(page.hits.map((hit) => hit.uri), [bookUri(6), bookUri(7)]);
      // Unquoted, the order is after the last colon.
      const bySmith = await search(service, "sort=dct:creator:desc&sort=datePublished:desc&size=2");
      assert.deepEqual(bySmith.hits.map((hit) => hit.uri), [bookUri(5), bookUri(4)]);
      const all = await search(service, "sort=datePublished:asc&size=100");
      assert.equal(all.hits.length, 7);
      assert.equal(all.hits[0].uri, bookUri(4));
    }));

  test("facets count what SPARQL counts; any-of, ranges and highlights over HTTP", () =>
    withLibrary(backend, {}, async (service) => {
      const faceted = await search(
        service,
        `facet=types&facet=${encodeURIComponent("dct:creator")}&facet=datePublished&size=0`,
      );
      assert.equal(faceted.total, LIBRARY.length);
      const facets = (faceted as unknown as { facets: Record<string, FacetValue[]> }).facets;
      assert.deepEqual(facets.types, await sparqlCounts(service, "a"));
      assert.deepEqual(facets["dct:creator"], await sparqlCounts(service, `<${DCT}creator>`));
      assert.deepEqual(
        facets.datePublished,
        (await sparqlCounts(service, `<${SCHEMA}datePublished>`))
          .map(({ value, count }) => ({ value: Number(value), count }))
          .sort(byCountThenValue),
      );

      const aesopOrJones = await search(
        service,
        `any=${encodeURIComponent('"dct:creator":Aesop')}&any=${
          encodeURIComponent('"dct:creator":Jones')
        }&range=datePublished:2000..2021`,
      );
      assert.deepEqual(aesopOrJones.hits.map((hit) => hit.uri).sort(), [bookUri(2), bookUri(6)]);
      const highlighted = await search(service, "q=FOX&highlight=true");
      assert.equal(highlighted.total, 2);
      for (const hit of highlighted.hits) {
        const { highlights } = hit as unknown as { highlights: { text: string[] } };
        assert.ok(highlights.text.some((fragment) => /<em>fox<\/em>/i.test(fragment)));
      }
    }));

  test("updates and deletes through the item API reach the index", () =>
    withLibrary(backend, {}, async (service) => {
      await service.fetch(
        `/api/item?collection=${encodeURIComponent(BOOKS)}&item=${encodeURIComponent(bookUri(5))}`,
        { method: "DELETE" },
      ).then((response) => response.body?.cancel());
      const update = await service.fetch(
        `/api/item?collection=${encodeURIComponent(BOOKS)}&item=${encodeURIComponent(bookUri(6))}`,
        {
          method: "POST",
          headers: { "Content-Type": "application/ld+json" },
          body: JSON.stringify({ "@id": bookUri(6), [`${SCHEMA}name`]: "Oceans" }),
        },
      );
      assert.equal(update.status, 204, await update.text());
      await service.services.deps.indexOutbox.drain();
      assert.equal((await search(service, "")).total, 6);
      assert.equal((await search(service, "q=gardens")).total, 0);
      assert.equal((await search(service, "q=rivers")).total, 0);
      assert.deepEqual(
        (await search(service, "q=oceans")).hits.map((hit) => hit.uri),
        [
          bookUri(6),
        ],
      );
    }));

  test("windows beyond the limits are clamped, with the default from customer.yml", () =>
    withLibrary(backend, { SERVICE_ES_MAX_WINDOW: "6" }, async (service) => {
      // maxResultsLimit comes from `${SERVICE_ES_MAX_RESULTS:50}`: 50.
      const large = await search(service, "size=60");
      assert.deepEqual(large.clamped, {
        requested: { from: 0, size: 60 },
        applied: { from: 0, size: 6 },
      });
      const window = await search(service, "from=4&size=5");
      assert.deepEqual(window.clamped, {
        requested: { from: 4, size: 5 },
        applied: { from: 4, size: 2 },
      });
      assert.equal(window.hits.length, 2);
      assert.equal(window.total, 7);
      const beyond = await search(service, "from=100&size=1");
      assert.equal(beyond.from, 6);
      assert.equal(beyond.size, 0);
      assert.deepEqual(beyond.hits, []);
    }));

  test("SERVICE_ES_MAX_RESULTS overrides the customer.yml default", () =>
    withLibrary(backend, { SERVICE_ES_MAX_RESULTS: "5" }, async (service) => {
      assert.equal(service.config.service.search.query.maxResultsLimit, 5);
      const clamped = await search(service, "size=50");
      assert.equal(clamped.size, 5);
      assert.equal(clamped.hits.length, 5);
      assert.equal(clamped.total, 7);
      assert.deepEqual(clamped.clamped, {
        requested: { from: 0, size: 50 },
        applied: { from: 0, size: 5 },
      });
      assert.equal((await search(service, "size=5")).clamped, null);
    }));

  test("bad parameters are 400, unknown collections 404", () =>
    withService(backend, {}, async (service) => {
      const c = encodeURIComponent(BOOKS);
      const bad: [string, string][] = [
        [`collection=${c}&size=-1`, "invalid-parameter"],
        [`collection=${c}&size=ten`, "invalid-parameter"],
        [`collection=${c}&from=1.5`, "invalid-parameter"],
        [`collection=${c}&filter=novalue`, "invalid-parameter"],
        [`collection=${c}&filter=${encodeURIComponent('"dct:creator')}`, "invalid-parameter"],
        [`collection=${c}&sort=name:sideways`, "invalid-parameter"],
        [`collection=${c}&sort=:asc`, "invalid-parameter"],
        [`collection=${c}&any=novalue`, "invalid-parameter"],
        [`collection=${c}&range=datePublished:2000`, "invalid-parameter"],
        [`collection=${c}&range=datePublished:..`, "invalid-parameter"],
        [`collection=${c}&facetSize=-1`, "invalid-parameter"],
        [`collection=${c}&highlight=yes`, "invalid-boolean"],
        [`collection=${c}&q=haus&language=xx`, "invalid-parameter"],
        ["q=x", "missing-parameter"],
        ["collection=not%20an%20iri", "invalid-iri"],
      ];
      for (const [query, slug] of bad) {
        const response = await service.fetch(`/api/search?${query}`);
        const body = await expectProblem(response, 400, slug).catch((error) => {
          throw new Error(`${query}: ${error.message}`);
        });
        assert.ok(Array.isArray(body.errors), query);
      }
      await expectProblem(
        await service.fetch(`/api/search?collection=${encodeURIComponent("https://x.org/c")}`),
        404,
        "collection-not-found",
      );
      // A configured collection that was never indexed has no hits, not an error.
      const empty = await service.fetch(`/api/search?collection=${encodeURIComponent(UNINDEXED)}`);
      assert.equal(empty.status, 200);
      assert.equal((await empty.json()).total, 0);
    }));

  test("prefixed names in filters; unknown fields in filter and sort are 400", () =>
    withLibrary(backend, {}, async (service) => {
      const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
      await putBook(service, {
        n: 8,
        name: "Classes",
        creator: "Nobody",
        year: 1,
        type: `${RDFS}Class`,
      });
      await service.services.deps.indexOutbox.drain();
      // rdfs: is a well-known prefix, dct: the collection context's.
      const byPrefix = await search(service, `filter=${encodeURIComponent("types:rdfs:Class")}`);
      assert.deepEqual(byPrefix.hits.map((hit) => hit.uri), [bookUri(8)]);
      const byIri = await search(service, `filter=${encodeURIComponent(`types:${RDFS}Class`)}`);
      assert.deepEqual(byIri.hits.map((hit) => hit.uri), [bookUri(8)]);
      const anyOf = await search(
        service,
        `any=${encodeURIComponent("types:rdfs:Class")}&any=${encodeURIComponent("types:nope:x")}`,
      );
      assert.deepEqual(anyOf.hits.map((hit) => hit.uri), [bookUri(8)]);
      // An undefined prefix stays as written: nothing has that type.
      assert.equal(
        (await search(service, `filter=${encodeURIComponent("types:nope:Class")}`)).total,
        0,
      );

      // Unknown fields are named; known ones (declared, or held by documents) are not refused.
      const c = encodeURIComponent(BOOKS);
      const sortProblem = await expectProblem(
        await service.fetch(`/api/search?collection=${c}&sort=nosuchfield:desc`),
        400,
        "invalid-sort",
      );
      assert.match(String(sortProblem.detail), /"nosuchfield"/);
      assert.deepEqual(sortProblem.errors, [{
        path: "sort",
        message: "unknown field nosuchfield",
      }]);
      const filterProblem = await expectProblem(
        await service.fetch(`/api/search?collection=${c}&filter=nosuchfield:1`),
        400,
        "unknown-field",
      );
      assert.match(String(filterProblem.detail), /"nosuchfield"/);
      assert.deepEqual(filterProblem.errors, [
        { path: "filter", message: "unknown field nosuchfield" },
      ]);
      await expectProblem(
        await service.fetch(`/api/search?collection=${c}&range=nosuchfield:1..2`),
        400,
        "unknown-field",
      );
      assert.equal((await search(service, "sort=datePublished:desc")).total, 8);
      assert.equal((await search(service, "filter=datePublished:1234")).total, 0);
      assert.equal((await search(service, "filter=name:nothing%20like%20this")).total, 0);
      assert.equal((await search(service, "sort=uri&filter=types:x")).total, 0);
      // A collection with no document yet cannot tell a field from a typo: no refusal.
      const empty = await service.fetch(
        `/api/search?collection=${encodeURIComponent(UNINDEXED)}&sort=anything&filter=any:1`,
      );
      assert.equal(empty.status, 200, await empty.text());
    }));

  test("a collection's language stems its untagged literals", () =>
    withService(backend, {}, async (service) => {
      const put = async (collection: string, uri: string) => {
        const response = await service.fetch(
          `/api/item?collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`,
          {
            method: "PUT",
            headers: { "Content-Type": "text/turtle" },
            body: `<${uri}> <${DCT}title> "Die Häuser am See" ; <${DCT}extent> 42 .`,
          },
        );
        assert.equal(response.status, 201, await response.text());
      };
      await put(GERMAN, "https://data.example.org/id/german/1");
      await put(BOOKS, "https://data.example.org/id/book/untagged");
      await service.services.deps.indexOutbox.drain();
      const find = async (collection: string, q: string) => {
        const response = await service.fetch(
          `/api/search?collection=${encodeURIComponent(collection)}&q=${encodeURIComponent(q)}`,
        );
        assert.equal(response.status, 200);
        return (await response.json()).total;
      };
      // "Haus" is the stem of "Häuser" in German: found where the collection says German.
      assert.equal(await find(GERMAN, "Haus"), 1);
      assert.equal(await find(BOOKS, "Haus"), 0);
      assert.equal(await find(BOOKS, "Häuser"), 1);
    }));

  test("query DSL bodies", () =>
    withLibrary(backend, { SERVICE_ES_MAX_RESULTS: "3" }, async (service) => {
      const post = (body: string) =>
        service.fetch(`/api/search?collection=${encodeURIComponent(BOOKS)}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body,
        });
      await expectProblem(await post("{nope"), 400, "invalid-json");
      await expectProblem(await post("[1]"), 400, "invalid-search-query");
      const dsl = JSON.stringify({ size: 100, query: { match: { text: "quick" } } });
      if (backend.search.name === "embedded") {
        await expectProblem(await post(dsl), 501, "not-implemented");
        return;
      }
      const response = await post(dsl);
      assert.equal(response.status, 200);
      const result = await response.json();
      assert.equal(result.hits.total.value, 2);
      const all = await post(JSON.stringify({ size: 100, query: { match_all: {} } }));
      const allResult = await all.json();
      assert.equal(allResult.hits.total.value, 7);
      assert.equal(allResult.hits.hits.length, 3, "size clamped to SERVICE_ES_MAX_RESULTS");
      // The gate refuses unknown clauses; the engine's own refusals keep their mapping.
      const refused = await expectProblem(
        await post(JSON.stringify({ query: { no_such_query: {} } })),
        400,
        "search-query-refused",
      );
      assert.deepEqual(refused.errors, [
        { path: "/query/no_such_query", message: "no_such_query is not an accepted query clause" },
      ]);
      await expectProblem(
        await post(
          JSON.stringify({ query: { match: { text: { query: "x", operator: "sideways" } } } }),
        ),
        400,
        "invalid-search-query",
      );
    }));
}
