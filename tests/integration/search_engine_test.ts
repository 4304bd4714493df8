/**
 * One behavioural suite for every SearchEngine: the embedded engine always, OpenSearch when
 * `SERVICE_OPENSEARCH_URL` points at a node (`scripts/opensearch.sh start`).
 */
import { strict as assert } from "node:assert";
import { Parser } from "n3";
import { ProblemError, problemOf as asProblem } from "../../src/http/problem.ts";
import { openLocalDatabase } from "../../src/local_database.ts";
import type { ClampWarning, SearchLimits } from "../../src/search/clamp.ts";
import { buildSearchDocument } from "../../src/search/documents.ts";
import { fieldMappings } from "../../src/search/mapped_fields.ts";
import {
  EmbeddedSearchEngine,
  type EngineWriteRequest,
} from "../../src/search_embedded/embedded_search_engine.ts";
import { OpenSearchEngine } from "../../src/search_opensearch/opensearch_engine.ts";
import {
  type CollectionIndexRef,
  type IndexTarget,
  rawSearch,
  type SearchDocument,
  type SearchEngine,
  type SearchFieldValue,
  type SearchSort,
} from "../../src/search/search_engine.ts";
import {
  deleteIndicesWithPrefix,
  OPENSEARCH_DEFAULTS,
  openSearchUrl,
  reportOpenSearchSkipped,
  uniqueIndexPrefix,
} from "../support/opensearch.ts";
import { freePort } from "../support/ports.ts";

const DEFAULT_LIMITS: SearchLimits = {
  maxResultsLimit: 10000,
  maxWindow: 10000,
  trackTotalHits: 10_000,
};
const COLLECTION = "https://data.example.org/collection/books";
const WORKSPACE = "https://data.example.org/workspace/demo";
const BOOK = "https://schema.org/Book";
const ARTICLE = "https://schema.org/Article";

const ARTICLES = "https://data.example.org/collection/articles";

/** A document of `collection`. */
function docIn(
  collection: string,
  uri: string,
  fields: Record<string, SearchFieldValue>,
): SearchDocument {
  return { ...doc(uri, fields), collection };
}

/**
 * Two collections for searches over several indices: books hold "fox" three times and
 * "whale" twice, articles "fox" twice and "whale" twice; each its own genres but Whale;
 * `pages` only in books; every year once.
 */
const BOOKS = [
  ["Red fox runs", "Fable", 1990, 120],
  ["Fox and fox again, a fox tale", "Fable", 2001, 300],
  ["Quiet fox", "Fable", 1985, 80],
  ["Blue whale", "Whale", 2010, 250],
  ["Grey whale", "Whale", 1970, 90],
].map(([title, genre, year, pages], n) =>
  docIn(COLLECTION, `https://data.example.org/id/book/multi-${n}`, { title, genre, year, pages })
);
const ARTICLE_DOCS = [
  ["Fox news today", "News", 1995],
  ["The fox", "News", 2015],
  ["Plain words", "Essay", 1960],
  ["Whale song", "Whale", 2020],
  ["Whale watching", "Whale", 1980],
].map(([title, genre, year], n) =>
  docIn(ARTICLES, `https://data.example.org/id/article/multi-${n}`, { title, genre, year })
);

/** What one test gets: an engine with its own limits, a way to name fresh indices. */
interface SuiteContext {
  engine: SearchEngine;
  warnings: Record<string, unknown>[];
  index(mappings?: Record<string, unknown>): CollectionIndexRef;
}

/** Makes an engine for one test; `indexPrefix` starts every index name the test uses. */
type EngineFactory = (
  limits: SearchLimits,
  warn: (entry: Record<string, unknown>) => void,
  indexPrefix: string,
) => Promise<{ engine: SearchEngine; dispose(): Promise<void> }>;

function doc(uri: string, fields: Record<string, SearchFieldValue>): SearchDocument {
  const literals = Object.values(fields).flat().filter((value) => typeof value === "string");
  return {
    uri,
    collection: COLLECTION,
    workspace: WORKSPACE,
    types: [BOOK],
    hash: "0".repeat(64),
    modified: "2025-01-01T00:00:00.000Z",
    ...fields,
    text: literals.join("\n"),
  };
}

function book(n: number, fields: Record<string, SearchFieldValue> = {}): SearchDocument {
  return doc(`https://data.example.org/id/book/${String(n).padStart(3, "0")}`, fields);
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const value of iterable) all.push(value);
  return all;
}

async function assertProblem(promise: Promise<unknown>, status: number, slug: string) {
  await assert.rejects(promise, (thrown) => {
    const error = asProblem(thrown);
    assert.ok(error instanceof ProblemError, `expected a ProblemError, got ${thrown}`);
    assert.equal(error.status, status);
    assert.equal(error.slug, slug);
    return true;
  });
}

/** Registers the suite for one engine; `ignore` registers it without running it. */
export function defineSearchEngineSuite(
  name: string,
  makeEngine: EngineFactory,
  options: { ignore?: boolean } = {},
): void {
  const suitePrefix = uniqueIndexPrefix(name);
  let tests = 0;
  const test = (
    title: string,
    fn: (context: SuiteContext) => Promise<void>,
    limits = DEFAULT_LIMITS,
  ) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore: options.ignore,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const warnings: Record<string, unknown>[] = [];
        const prefix = `${suitePrefix}${++tests}-`;
        const { engine, dispose } = await makeEngine(
          limits,
          (entry) => warnings.push(entry),
          prefix,
        );
        let indices = 0;
        const index = (mappings?: Record<string, unknown>) => ({
          collection: COLLECTION,
          indexName: `${prefix}${++indices}`,
          mappings,
        });
        try {
          await fn({ engine, warnings, index });
        } finally {
          await dispose();
        }
      },
    });

  test("upsert then full-text search, filters, sort and paging", async ({ engine, index }) => {
    const ref = index();
    await engine.ensureIndex(ref);
    const result = await engine.upsert(ref, [
      book(1, { title: "The quick brown fox", year: 1999, genre: "Fable" }),
      book(2, { title: "A lazy dog sleeps", year: 2005, genre: "Fable" }),
      book(3, { title: "Quick thinking", year: 2012, genre: "Essay" }),
      {
        ...book(4, { title: "Fox hunting history", year: 1850, genre: "History" }),
        types: [ARTICLE],
      },
    ]);
    assert.deepEqual(result, { succeeded: 4, failed: [] });
    await engine.refresh(ref);

    const quick = await engine.search(ref, { q: "QUICK" });
    assert.deepEqual(quick.hits.map((hit) => hit.uri).sort(), [book(1, {}).uri, book(3, {}).uri]);
    assert.ok(quick.hits.every((hit) => typeof hit.score === "number" && hit.score > 0));
    const both = await engine.search(ref, { q: "fox quick" });
    assert.deepEqual(both.hits.map((hit) => hit.uri), [book(1, {}).uri]);
    assert.equal((await engine.search(ref, { q: "unicorn" })).total, 0);
    assert.equal((await engine.search(ref, { q: "?!" })).total, 0);

    const fables = await engine.search(ref, { filters: [{ field: "genre", value: "Fable" }] });
    assert.equal(fables.total, 2);
    assert.ok(fables.hits.every((hit) => hit.score === null));
    assert.equal(
      (await engine.search(ref, { filters: [{ field: "genre", value: "fable" }] })).total,
      0,
    );
    const articles = await engine.search(ref, { filters: [{ field: "types", value: ARTICLE }] });
    assert.deepEqual(articles.hits.map((hit) => hit.document.title), ["Fox hunting history"]);
    const recentFox = await engine.search(ref, {
      q: "fox",
      filters: [{ field: "year", value: "1999" }],
    });
    assert.deepEqual(recentFox.hits.map((hit) => hit.uri), [book(1, {}).uri]);
    assert.equal(
      (await engine.search(ref, { filters: [{ field: "year", value: "old" }] })).total,
      0,
    );

    const byYear = await engine.search(ref, { sort: [{ field: "year", order: "desc" }] });
    assert.deepEqual(byYear.hits.map((hit) => hit.document.year), [2012, 2005, 1999, 1850]);
    const byTitle = await engine.search(ref, {
      sort: [{ field: "title", order: "asc" }],
      from: 1,
      size: 2,
    });
    assert.equal(byTitle.total, 4);
    assert.equal(byTitle.from, 1);
    assert.equal(byTitle.size, 2);
    assert.equal(byTitle.clamped, null);
    assert.deepEqual(byTitle.hits.map((hit) => hit.document.title), [
      "Fox hunting history",
      "Quick thinking",
    ]);
    const genreThenYear = await engine.search(ref, {
      sort: [{ field: "genre", order: "desc" }, { field: "year", order: "asc" }],
    });
    assert.deepEqual(genreThenYear.hits.map((hit) => hit.document.year), [1850, 1999, 2005, 2012]);
    assert.deepEqual(genreThenYear.hits[0].document, {
      ...book(4, { title: "Fox hunting history", year: 1850, genre: "History" }),
      types: [ARTICLE],
    });
  });

  test("any-of filters, ranges, facets and highlights", async ({ engine, index }) => {
    const ref = index();
    await engine.ensureIndex(ref);
    await engine.upsert(ref, [
      book(1, {
        title: "The quick brown fox",
        year: 1999,
        genre: "Fable",
        subject: ["Animals", "Nature"],
        available: true,
        published: "1999-05-01",
      }),
      book(2, {
        title: "A lazy dog sleeps",
        year: 2005,
        genre: "Fable",
        subject: ["Animals"],
        available: false,
        published: "2005-11-30",
      }),
      book(3, {
        title: "Quick thinking",
        year: 2012,
        genre: "Essay",
        subject: ["Mind"],
        available: true,
        published: "2012-01-15",
      }),
      {
        ...book(4, {
          title: "<b>Fox & Hound</b>: a history",
          year: 1850,
          genre: "History",
          subject: ["Animals", "Hunting"],
          available: true,
          published: "1850-07-04",
        }),
        types: [ARTICLE],
      },
    ]);
    await engine.refresh(ref);
    const uris = (response: { hits: { uri: string }[] }) =>
      response.hits.map((hit) => hit.uri.slice(-3)).sort();

    const fablesOrEssays = await engine.search(ref, {
      anyOf: [{ field: "genre", values: ["Fable", "Essay"] }],
    });
    assert.deepEqual(uris(fablesOrEssays), ["001", "002", "003"]);
    const narrowed = await engine.search(ref, {
      anyOf: [{ field: "genre", values: ["Fable", "History"] }, {
        field: "subject",
        values: ["Nature", "Hunting"],
      }],
      filters: [{ field: "available", value: "true" }],
    });
    assert.deepEqual(uris(narrowed), ["001", "004"]);
    const numbers = await engine.search(ref, {
      anyOf: [{ field: "year", values: ["1850", "2012", "none"] }],
    });
    assert.deepEqual(uris(numbers), ["003", "004"]);

    const range = async (field: string, gte?: string, lte?: string) =>
      uris(await engine.search(ref, { ranges: [{ field, gte, lte }] }));
    assert.deepEqual(await range("year", "1999", "2005"), ["001", "002"]);
    assert.deepEqual(await range("year", "2000"), ["002", "003"]);
    assert.deepEqual(await range("year", undefined, "1900"), ["004"]);
    assert.deepEqual(await range("year", "old"), []);
    assert.deepEqual(await range("published", "1999-01-01", "2005-12-31"), ["001", "002"]);
    assert.deepEqual(await range("genre", "F", "G"), ["001", "002"]);

    const faceted = await engine.search(ref, {
      facets: ["genre", "year", "subject", "available", "types", "nothing"],
      size: 1,
    });
    assert.equal(faceted.hits.length, 1, "facets count every hit, not only the page");
    assert.equal(faceted.facetsClamped, null);
    assert.deepEqual(faceted.facets, {
      genre: [
        { value: "Fable", count: 2 },
        { value: "Essay", count: 1 },
        { value: "History", count: 1 },
      ],
      year: [
        { value: 1850, count: 1 },
        { value: 1999, count: 1 },
        { value: 2005, count: 1 },
        { value: 2012, count: 1 },
      ],
      subject: [
        { value: "Animals", count: 3 },
        { value: "Hunting", count: 1 },
        { value: "Mind", count: 1 },
        { value: "Nature", count: 1 },
      ],
      available: [{ value: true, count: 3 }, { value: false, count: 1 }],
      types: [{ value: BOOK, count: 3 }, { value: ARTICLE, count: 1 }],
      nothing: [],
    });
    const foxFacets = await engine.search(ref, { q: "fox", facets: ["subject"], facetSize: 2 });
    assert.deepEqual(foxFacets.facets, {
      subject: [{ value: "Animals", count: 2 }, { value: "Hunting", count: 1 }],
    });
    const none = await engine.search(ref, { q: "unicorn", facets: ["genre"] });
    assert.deepEqual(none.facets, { genre: [] });
    assert.equal((await engine.search(ref, { q: "fox" })).facets, undefined);

    const highlighted = await engine.search(ref, { q: "FOX", highlight: true });
    assert.deepEqual(uris(highlighted), ["001", "004"]);
    for (const hit of highlighted.hits) {
      const fragments = hit.highlights?.text ?? [];
      assert.ok(fragments.length > 0, `${hit.uri} has highlights`);
      assert.ok(fragments.every((fragment) => /<em>fox<\/em>/i.test(fragment)), fragments.join());
    }
    const hound = highlighted.hits.find((hit) => hit.uri.endsWith("004"))!;
    assert.ok(
      hound.highlights!.text.some((fragment) =>
        fragment.includes("&lt;b&gt;<em>Fox</em> &amp; Hound&lt;&#x2F;b&gt;")
      ),
      hound.highlights!.text.join(),
    );
    const plain = await engine.search(ref, { highlight: true, size: 1 });
    assert.deepEqual(plain.hits[0].highlights, {});
  });

  test("language-tagged literals are found by inflected forms in their language", async ({ engine, index }) => {
    const ref = index();
    const item = (n: number, turtle: string) => {
      const uri = book(n).uri;
      return buildSearchDocument({
        uri,
        collection: COLLECTION,
        workspace: WORKSPACE,
        hash: "0".repeat(64),
        modified: "2025-01-01T00:00:00.000Z",
        quads: new Parser().parse(`<${uri}> ${turtle} .`),
      });
    };
    const german = item(1, `<urn:p:title> "Die Häuser der Stadt"@de`);
    const english = item(2, `<urn:p:title> "Running with wolves"@en-GB`);
    const plain = item(3, `<urn:p:title> "Haus am See"`);
    assert.equal(german.text_de, "Die Häuser der Stadt");
    assert.equal(english.text_en, "Running with wolves");
    assert.equal(plain.text_de, undefined);
    await engine.upsert(ref, [german, english, plain]);
    await engine.refresh(ref);
    const found = async (q: string, language?: string) =>
      (await engine.search(ref, { q, language })).hits.map((hit) => hit.uri.slice(-3)).sort();

    assert.deepEqual(await found("Haus"), ["001", "003"]);
    assert.deepEqual(await found("häuser"), ["001"]);
    assert.deepEqual(await found("Haus", "de"), ["001"]);
    assert.deepEqual(await found("Haus", "en"), []);
    assert.deepEqual(await found("runs"), ["002"]);
    assert.deepEqual(await found("run wolves", "en"), ["002"]);
    assert.deepEqual(await found("runs", "de"), []);

    const highlighted = await engine.search(ref, { q: "Haus", language: "de", highlight: true });
    assert.deepEqual(highlighted.hits[0].highlights, {
      text: ["Die <em>Häuser</em> der Stadt"],
    });
    // One list, not one per field that matched (`text` and `text_en` hold the same literal).
    const both = await engine.search(ref, { q: "wolves", highlight: true });
    assert.deepEqual(both.hits[0].highlights, { text: ["Running with <em>wolves</em>"] });
  });

  /** A document of an item described by `turtle` (its subject is the item). */
  const itemDocument = (name: string, turtle: string) => {
    const uri = `http://www.w3.org/2004/02/skos/core#${name}`;
    return buildSearchDocument({
      uri,
      collection: COLLECTION,
      workspace: WORKSPACE,
      hash: "0".repeat(64),
      modified: "2025-01-01T00:00:00.000Z",
      quads: new Parser().parse(
        `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
         @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
         <${uri}> ${turtle} .`,
      ),
    });
  };

  test("an item labelled with the words of q ranks above items that only mention them", async ({ engine, index }) => {
    const ref = index();
    const mentions = ["broader", "narrower", "related", "member", "inScheme"].map((name) =>
      itemDocument(
        name,
        `rdfs:label "${name}"@en ; skos:definition "Relates a concept to a concept: ` +
          `the concept of a concept scheme, concept by concept."@en ; ` +
          `rdfs:comment "A concept, another concept."`,
      )
    );
    const concept = itemDocument(
      "Concept",
      `rdfs:label "Concept"@en ; skos:definition "An idea or notion; a unit of thought."@en`,
    );
    assert.equal(concept.labels, "Concept");
    await engine.upsert(ref, [concept, ...mentions]);
    await engine.refresh(ref);
    for (const q of ["concept", "CONCEPT"]) {
      const found = await engine.search(ref, { q });
      assert.equal(found.total, 6);
      assert.equal(found.hits[0].uri, concept.uri, found.hits.map((hit) => hit.uri).join());
      assert.ok(found.hits[0].score! > found.hits[1].score!);
    }
  });

  test("q is folded: without diacritics it finds words with them, and the other way", async ({ engine, index }) => {
    const ref = index();
    const accented = itemDocument("a", `rdfs:label "Datová sada"@cs ; rdfs:comment "Café crème"`);
    const plain = itemDocument("b", `rdfs:comment "Datova sada, cafe"`);
    await engine.upsert(ref, [accented, plain]);
    await engine.refresh(ref);
    const found = async (q: string) =>
      (await engine.search(ref, { q })).hits.map((hit) => hit.uri.slice(-1)).sort();
    assert.deepEqual(await found("datova"), ["a", "b"]);
    assert.deepEqual(await found("datová"), ["a", "b"]);
    assert.deepEqual(await found("DATOVÁ SADA"), ["a", "b"]);
    assert.deepEqual(await found("creme"), ["a"]);
    assert.deepEqual(await found("café"), ["a", "b"]);
    const highlighted = await engine.search(ref, { q: "datova", highlight: true });
    const fragments = Object.fromEntries(
      highlighted.hits.map((hit) => [hit.uri.slice(-1), hit.highlights]),
    );
    assert.deepEqual(fragments.a, { text: ["<em>Datová</em> sada"] });
    assert.deepEqual(fragments.b, { text: ["<em>Datova</em> sada, cafe"] });
  });

  test("sort=label: the reader's language's label, folded to lower case without diacritics", async ({ engine, index }) => {
    const ref = index();
    await engine.upsert(ref, [
      itemDocument("a", `rdfs:label "banana"@en, "Zitrone"@de`),
      itemDocument("b", `rdfs:label "Apple"@en, "apfel"@de`),
      itemDocument("c", `rdfs:label "Élan" ; skos:prefLabel "zebra"@en`),
      itemDocument("d", `skos:prefLabel "cherry"`),
      itemDocument("e", `rdfs:comment "no label at all"`),
    ]);
    await engine.refresh(ref);
    const order = async (orderBy: "asc" | "desc", language?: string) =>
      (await engine.search(ref, { sort: [{ field: "label", order: orderBy }], language }))
        .hits.map((hit) => hit.uri.slice(-1)).join("");
    // Untagged first (c's "Élan" before its English "zebra"), then English.
    assert.equal(await order("asc"), "badce");
    assert.equal(await order("desc"), "cdabe");
    // German readers: "apfel", "Zitrone"; the others keep untagged, then English.
    assert.equal(await order("asc", "de"), "bdcae");
    assert.equal(await order("desc", "de"), "acdbe");
    assert.equal(await order("asc", "en"), "badce");
  });

  test("highlight fragments start and end at word boundaries", async ({ engine, index }) => {
    const ref = index();
    const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima";
    const document = itemDocument("w", `rdfs:comment "${words} needle ${words}"`);
    await engine.upsert(ref, [document]);
    await engine.refresh(ref);
    const found = await engine.search(ref, { q: "needle", highlight: true });
    const fragments = found.hits[0].highlights?.text ?? [];
    assert.equal(fragments.length, 1, fragments.join("|"));
    const known = new Set([...words.split(" "), "<em>needle</em>"]);
    const fragmentWords = fragments[0].split(" ");
    assert.ok(fragmentWords.length > 3, fragments[0]);
    for (const word of fragmentWords) assert.ok(known.has(word), `${word} in ${fragments[0]}`);
  });

  test("collection search fields: their mappings, filters, ranges and facets", async ({ engine, index }) => {
    const ref = index({
      properties: fieldMappings([
        { name: "subject", path: "x:s", type: "text", language: "de", multiple: true },
        { name: "year", path: "x:y", type: "integer", multiple: false },
        { name: "issued", path: "x:d", type: "date", multiple: false },
        { name: "about", path: "x:a", type: "iri", multiple: true },
        { name: "open", path: "x:o", type: "boolean", multiple: false },
      ]),
    });
    await engine.ensureIndex(ref);
    const result = await engine.upsert(ref, [
      book(1, {
        subject: ["Häuser"],
        year: 1999,
        issued: "1999-05-01",
        about: ["urn:c:1"],
        open: true,
      }),
      book(2, {
        subject: ["Gärten", "Häuser"],
        year: 2005,
        issued: "2005-11-30T10:00:00Z",
        about: ["urn:c:1", "urn:c:2"],
        open: false,
      }),
      book(3, { year: 2012, issued: "2012-01-15", about: ["urn:c:2"], open: true }),
    ]);
    assert.deepEqual(result, { succeeded: 3, failed: [] });
    await engine.refresh(ref);
    const uris = async (request: Parameters<SearchEngine["search"]>[1]) =>
      (await engine.search(ref, request)).hits.map((hit) => hit.uri.slice(-3)).sort();
    assert.deepEqual(await uris({ filters: [{ field: "subject", value: "Häuser" }] }), [
      "001",
      "002",
    ]);
    assert.deepEqual(await uris({ ranges: [{ field: "year", gte: "2000" }] }), ["002", "003"]);
    assert.deepEqual(
      await uris({ ranges: [{ field: "issued", gte: "2000-01-01", lte: "2010-12-31" }] }),
      ["002"],
    );
    assert.deepEqual(await uris({ anyOf: [{ field: "about", values: ["urn:c:2"] }] }), [
      "002",
      "003",
    ]);
    assert.deepEqual(await uris({ filters: [{ field: "open", value: "true" }] }), ["001", "003"]);
    const facets = (await engine.search(ref, { facets: ["about", "subject", "year", "open"] }))
      .facets;
    assert.deepEqual(facets, {
      about: [{ value: "urn:c:1", count: 2 }, { value: "urn:c:2", count: 2 }],
      subject: [{ value: "Häuser", count: 2 }, { value: "Gärten", count: 1 }],
      year: [{ value: 1999, count: 1 }, { value: 2005, count: 1 }, { value: 2012, count: 1 }],
      open: [{ value: true, count: 2 }, { value: false, count: 1 }],
    });
  });

  test(
    "facet sizes are clamped to maxResultsLimit, reported and warned about",
    async ({ engine, index, warnings }) => {
      const ref = index();
      await engine.upsert(ref, [1, 2, 3, 4].map((n) => book(n, { genre: `G${n}` })));
      await engine.refresh(ref);
      const result = await engine.search(ref, { facets: ["genre"], facetSize: 50 });
      assert.deepEqual(result.facetsClamped, { requested: 50, applied: 3 });
      assert.deepEqual(result.facets?.genre.map((entry) => entry.value), ["G1", "G2", "G3"]);
      assert.ok(warnings.some((entry) => entry.msg === "search facet size clamped"));
    },
    { maxResultsLimit: 3, maxWindow: 100, trackTotalHits: 10_000 },
  );

  test("an older version of a document never replaces a newer one", async ({ engine, index }) => {
    const ref = index();
    const at = (modified: string, title: string) => ({ ...book(1, { title }), modified });
    await engine.upsert(ref, [at("2026-01-02T00:00:00.000Z", "Newer state")]);
    // A write built from an older state of the item, arriving late: counted, not applied.
    const late = await engine.upsert(ref, [at("2026-01-01T00:00:00.000Z", "Older state")]);
    assert.deepEqual(late, { succeeded: 1, failed: [] });
    await engine.refresh(ref);
    assert.equal((await engine.search(ref, {})).hits[0].document.title, "Newer state");
    // The same version again replaces (re-indexing one state is harmless), a newer one too.
    await engine.upsert(ref, [at("2026-01-02T00:00:00.000Z", "Same state")]);
    await engine.upsert(ref, [at("2026-01-03T00:00:00.000Z", "Newest state")]);
    await engine.refresh(ref);
    assert.equal((await engine.search(ref, {})).hits[0].document.title, "Newest state");
  });

  test(
    "totals beyond trackTotalHits are at least that; facets beyond it are exact or lower bounds",
    async ({ engine, index }) => {
      const ref = index();
      const genres = ["Fable", "Fable", "Essay", "Fable", "History"];
      await engine.upsert(
        ref,
        genres.map((genre, n) =>
          book(n + 1, {
            title: n < 2 ? `common rare ${n}` : `common word ${n}`,
            genre,
            year: 2000 + n,
          })
        ),
      );
      await engine.refresh(ref);
      const uris = (response: { hits: { uri: string }[] }) =>
        response.hits.map((hit) => hit.uri.slice(-3));

      const all = await engine.search(ref, { q: "common", facets: ["genre"] });
      assert.equal(all.total, 3);
      assert.equal(all.totalRelation, "gte");
      assert.equal(all.hits.length, 5, "every hit can still be paged to");
      const exact = { Fable: 3, Essay: 1, History: 1 };
      for (const { value, count } of all.facets!.genre) {
        const truth = exact[value as keyof typeof exact];
        if (all.facetsRelation === "eq") assert.equal(count, truth);
        else assert.ok(count <= truth, `${value}: ${count} is at most ${truth}`);
      }
      if (all.facetsRelation === "eq") assert.equal(all.facets!.genre.length, 3);
      else assert.equal(all.facetsRelation, "gte");
      const filtered = await engine.search(ref, {
        filters: [{ field: "collection", value: COLLECTION }],
      });
      assert.deepEqual([filtered.total, filtered.totalRelation], [3, "gte"]);
      const pastThreshold = await engine.search(ref, { from: 4, size: 2 });
      assert.deepEqual(uris(pastThreshold), ["005"], "a page past the threshold still has hits");

      const two = await engine.search(ref, { q: "rare", facets: ["genre"] });
      assert.deepEqual([two.total, two.totalRelation], [2, "eq"]);
      assert.deepEqual(two.facets, { genre: [{ value: "Fable", count: 2 }] });
      assert.equal(two.facetsRelation, "eq");
      const three = await engine.search(ref, { q: "word" });
      assert.deepEqual([three.total, three.totalRelation], [3, "eq"]);

      // Full text with a field sort and with a range: every hit, not only the first ones.
      const sorted = await engine.search(ref, {
        q: "common",
        sort: [{ field: "year", order: "desc" }],
      });
      assert.deepEqual(uris(sorted), ["005", "004", "003", "002", "001"]);
      const ranged = await engine.search(ref, {
        q: "common",
        ranges: [{ field: "year", gte: "2001", lte: "2003" }],
      });
      assert.deepEqual(uris(ranged).sort(), ["002", "003", "004"]);
      assert.equal(ranged.totalRelation, "eq");
    },
    { maxResultsLimit: 10000, maxWindow: 10000, trackTotalHits: 3 },
  );

  test("upsert replaces a document with the same URI", async ({ engine, index }) => {
    const ref = index();
    await engine.upsert(ref, [book(1, { title: "First edition" })]);
    await engine.upsert(ref, [book(1, { title: "Second edition" })]);
    await engine.refresh(ref);
    const all = await engine.search(ref, {});
    assert.equal(all.total, 1);
    assert.equal(all.hits[0].document.title, "Second edition");
    assert.equal((await engine.search(ref, { q: "first" })).total, 0);
  });

  test(
    "search windows are clamped, reported and warned about once",
    async ({ engine, index, warnings }) => {
      const ref = index();
      await engine.upsert(
        ref,
        Array.from({ length: 12 }, (_, n) => book(n, { title: `Book ${n}` })),
      );
      await engine.refresh(ref);

      const unclamped = await engine.search(ref, { from: 2, size: 3 });
      assert.equal(unclamped.clamped, null);
      assert.equal(warnings.length, 0);

      const deep = await engine.search(ref, { from: 6, size: 10 });
      assert.deepEqual(deep.clamped, {
        requested: { from: 6, size: 10 },
        applied: { from: 6, size: 2 },
      });
      assert.equal(deep.total, 12);
      assert.deepEqual([deep.from, deep.size, deep.hits.length], [6, 2, 2]);
      assert.equal(deep.hits[0].uri, book(6).uri);
      assert.equal(warnings.length, 1);
      assert.deepEqual(warnings[0].applied, { from: 6, size: 2 });

      const tooFar = await engine.search(ref, { from: 50, size: 5 });
      assert.deepEqual(tooFar.clamped?.applied, { from: 8, size: 0 });
      assert.equal(tooFar.hits.length, 0);
      assert.equal(tooFar.total, 12);
      const big = await engine.search(ref, { size: 100 });
      assert.deepEqual(big.clamped?.applied, { from: 0, size: 5 });
      assert.equal(big.hits.length, 5);
      assert.equal(warnings.length, 3);
    },
    { maxResultsLimit: 5, maxWindow: 8, trackTotalHits: 10_000 },
  );

  test("remove deletes documents and ignores unknown URIs", async ({ engine, index }) => {
    const ref = index();
    await engine.upsert(ref, [1, 2, 3].map((n) => book(n, { title: `Title ${n}` })));
    await engine.refresh(ref);
    const removed = await engine.remove(ref, [book(1).uri, book(3).uri, book(99).uri]);
    assert.deepEqual(removed, { succeeded: 3, failed: [] });
    await engine.refresh(ref);
    const left = await engine.search(ref, {});
    assert.deepEqual(left.hits.map((hit) => hit.uri), [book(2).uri]);
    assert.equal((await engine.search(ref, { q: "title" })).total, 1);
  });

  test(
    "listDocumentUris reads every URI in order across clamped pages",
    async ({ engine, index }) => {
      const ref = index();
      const documents = Array.from({ length: 23 }, (_, n) => book(22 - n, { title: `T${n}` }));
      await engine.upsert(ref, documents);
      await engine.refresh(ref);
      const uris = await collect(engine.listDocumentUris(ref));
      assert.deepEqual(uris, documents.map((document) => document.uri).sort());
      assert.deepEqual(await collect(engine.listDocumentUris(index())), []);
    },
    { maxResultsLimit: 7, maxWindow: 10000, trackTotalHits: 10_000 },
  );

  test("rebuild fills a new index and swaps it in at commit", async ({ engine, index }) => {
    const ref = index();
    await engine.upsert(ref, [1, 2, 3].map((n) => book(n, { title: `Old ${n}` })));
    await engine.refresh(ref);

    const target = await engine.beginRebuild(ref);
    const seen: number[] = [];
    let searching = true;
    const searcher = (async () => {
      while (searching) {
        seen.push((await engine.search(ref, {})).total);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    for (let n = 10; n < 40; n += 10) {
      await engine.upsert(target, [n, n + 1].map((m) => book(m, { title: `New ${m}` })));
      await engine.refresh(target);
    }
    // A write to the collection's index during the rebuild reaches both indices.
    await engine.upsert(ref, [book(50, { title: "Old and new 50" })]);
    await engine.refresh(ref);
    assert.equal((await engine.search(ref, {})).total, 4);
    assert.equal((await engine.search(ref, { q: "new" })).total, 1);

    await engine.commitRebuild(target);
    searching = false;
    await searcher;
    assert.ok(seen.length > 0);
    // Old index (3, then 4 with the dual write), then the new one (7): never empty or partial.
    assert.ok(
      seen.every((total) => [3, 4, 7].includes(total)),
      `searches during the rebuild saw ${seen}`,
    );

    const after = await engine.search(ref, { size: 20 });
    assert.deepEqual(
      after.hits.map((hit) => hit.uri),
      [10, 11, 20, 21, 30, 31, 50].map((n) => book(n).uri),
    );
    assert.equal((await engine.search(ref, { q: "old" })).total, 1);
    assert.deepEqual(await collect(engine.listDocumentUris(ref)), after.hits.map((hit) => hit.uri));
    await assertProblem(engine.upsert(target, [book(60)]), 409, "rebuild-not-active");

    // A second rebuild works on the swapped index as on the first.
    const again = await engine.beginRebuild(ref);
    await engine.upsert(again, [book(70, { title: "Third" })]);
    await engine.commitRebuild(again);
    assert.deepEqual((await engine.search(ref, {})).hits.map((hit) => hit.uri), [book(70).uri]);
  });

  test("an aborted rebuild leaves the old index serving", async ({ engine, index }) => {
    const ref = index();
    await engine.upsert(ref, [book(1, { title: "Kept" }), book(2, { title: "Kept too" })]);
    await engine.refresh(ref);
    const target = await engine.beginRebuild(ref);
    await engine.upsert(target, [book(3, { title: "Discarded" })]);
    await engine.refresh(target);
    await engine.abortRebuild(target);

    const all = await engine.search(ref, {});
    assert.deepEqual(all.hits.map((hit) => hit.uri), [book(1).uri, book(2).uri]);
    assert.equal((await engine.search(ref, { q: "discarded" })).total, 0);
    await assertProblem(engine.upsert(target, [book(4)]), 409, "rebuild-not-active");
    await assertProblem(engine.commitRebuild(target), 409, "rebuild-not-active");
    await engine.upsert(ref, [book(5, { title: "Later" })]);
    await engine.refresh(ref);
    assert.equal((await engine.search(ref, {})).total, 3);
  });

  test("documents the index refuses are reported one by one", async ({ engine, index }) => {
    const ref = index({ properties: { pages: { type: "integer" } } });
    await engine.ensureIndex(ref);
    const noUri = { ...book(3, { title: "No URI" }), uri: "" };
    const result = await engine.upsert(ref, [
      book(1, { title: "Fine", pages: 120 }),
      book(2, { title: "Broken", pages: "many" }),
      noUri,
      book(4, { title: "Coerced", pages: "42" }),
    ]);
    assert.equal(result.succeeded, 2);
    assert.deepEqual(result.failed.map((failure) => [failure.uri, failure.kind]).sort(), [
      ["", "invalid-input"],
      [book(2).uri, "invalid-input"],
    ]);
    assert.match(result.failed.find((failure) => failure.uri === book(2).uri)!.message, /pages/);
    await engine.refresh(ref);
    const stored = await engine.search(ref, { sort: [{ field: "pages", order: "asc" }] });
    assert.deepEqual(stored.hits.map((hit) => hit.uri), [book(4).uri, book(1).uri]);
  });

  test("an index never written answers with no hits", async ({ engine, index }) => {
    const ref = index();
    const response = await engine.search(ref, { q: "anything" });
    assert.deepEqual(response, {
      total: 0,
      totalRelation: "eq",
      from: 0,
      size: 10,
      clamped: null,
      hits: [],
    });
  });

  test("documents built from RDF are searchable by nested fields", async ({ engine, index }) => {
    const ref = index();
    const quads = new Parser().parse(`
      @prefix schema: <https://schema.org/> .
      <https://data.example.org/id/book/rdf> a schema:Book ;
        schema:name "Moby Dick" ;
        schema:author [ schema:name "Herman Melville" ; schema:birthDate "1819-08-01" ] .
    `);
    const document = buildSearchDocument({
      uri: "https://data.example.org/id/book/rdf",
      collection: COLLECTION,
      workspace: WORKSPACE,
      hash: "a".repeat(64),
      modified: "2025-02-03T04:05:06.000Z",
      quads,
    });
    assert.deepEqual(await engine.upsert(ref, [document]), { succeeded: 1, failed: [] });
    await engine.refresh(ref);
    const byAuthor = await engine.search(ref, {
      filters: [{ field: "author.name", value: "Herman Melville" }],
    });
    assert.deepEqual(byAuthor.hits.map((hit) => hit.document), [document]);
    assert.equal((await engine.search(ref, { q: "melville" })).total, 1);
    assert.equal(
      (await engine.search(ref, { filters: [{ field: "workspace", value: WORKSPACE }] })).total,
      1,
    );
  });

  test(
    "rawSearch clamps nested sizes (OpenSearch) or is not implemented (embedded)",
    async ({ engine, index, warnings }) => {
      const ref = index();
      await engine.upsert(
        ref,
        Array.from({ length: 6 }, (_, n) => book(n, { genre: `g${n}`, title: `Book ${n}` })),
      );
      await engine.refresh(ref);
      const body = {
        size: 50,
        query: { match_all: {} },
        aggs: {
          genres: {
            terms: { field: "genre.keyword", size: 500 },
            aggs: { top: { top_hits: { size: 100, _source: ["uri"] } } },
          },
        },
      };
      if (engine.kind === "embedded") {
        await assertProblem(rawSearch(engine, ref, body), 501, "not-implemented");
        return;
      }
      const { response, changes } = await rawSearch(engine, ref, body);
      assert.deepEqual(changes.map((change) => [change.path, change.applied]), [
        ["size", 3],
        ["aggs.genres.terms.size", 3],
        ["aggs.genres.aggs.top.top_hits.size", 3],
      ]);
      assert.equal(warnings.length, 1);
      const hits = response.hits as { hits: unknown[]; total: { value: number } };
      assert.equal(hits.hits.length, 3);
      assert.equal(hits.total.value, 6);
      const buckets = (response.aggregations as {
        genres: { buckets: { key: string; top: { hits: { hits: unknown[] } } }[] };
      }).genres.buckets;
      assert.equal(buckets.length, 3);
      assert.ok(buckets.every((bucket) => bucket.top.hits.hits.length === 1));
      await assertProblem(
        rawSearch(engine, ref, { query: { no_such_query: {} } }),
        400,
        "invalid-search-query",
      );
    },
    { maxResultsLimit: 3, maxWindow: 10000, trackTotalHits: 10_000 },
  );

  test("a field that is an IRI in one document and a blank node in another", async ({ engine, index }) => {
    // SKOS's rdfs:range: an IRI on most properties, an owl:unionOf blank node on skos:member;
    // `mixed` has both in one field. The blank node's document is written first, so the
    // index meets the object shape first, then the string, then both at once.
    const quads = new Parser().parse(`
      @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
      @prefix owl: <http://www.w3.org/2002/07/owl#> .
      @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
      @prefix p: <https://data.example.org/id/property/> .
      p:member rdfs:label "has member" ; rdfs:range [ owl:unionOf ( skos:Concept skos:Collection ) ] .
      p:related rdfs:label "has related" ; rdfs:range skos:Concept .
      p:mixed rdfs:label "has mixed" ;
        rdfs:range skos:OrderedCollection, [ owl:unionOf ( skos:Concept skos:ConceptScheme ) ] .
    `);
    const documentOf = (name: string) => {
      const uri = `https://data.example.org/id/property/${name}`;
      return buildSearchDocument({
        uri,
        collection: COLLECTION,
        workspace: WORKSPACE,
        hash: "c".repeat(64),
        modified: "2025-03-01T00:00:00.000Z",
        quads: quads.filter((quad) =>
          quad.subject.value === uri || quad.subject.termType === "BlankNode"
        ),
      });
    };
    const SKOS = "http://www.w3.org/2004/02/skos/core#";
    const [member, related, mixed] = ["member", "related", "mixed"].map(documentOf);
    assert.equal(related.range, `${SKOS}Concept`);
    assert.equal(typeof member.range, "object");
    assert.ok(Array.isArray(mixed.range) && mixed.range.length === 2);

    const ref = index();
    await engine.ensureIndex(ref);
    for (const document of [member, related, mixed]) {
      assert.deepEqual(await engine.upsert(ref, [document]), { succeeded: 1, failed: [] });
    }
    await engine.refresh(ref);
    const found = async (request: Parameters<SearchEngine["search"]>[1]) =>
      (await engine.search(ref, request)).hits.map((hit) => hit.uri.split("/").pop()).sort();

    // Every document is indexed, found by `q`, and comes back as it was built.
    assert.deepEqual(await found({ q: "has" }), ["member", "mixed", "related"]);
    const all = await engine.search(ref, { sort: [{ field: "uri", order: "asc" }] });
    assert.deepEqual(all.hits.map((hit) => hit.document), [member, mixed, related]);
    // `range:<iri>` finds the IRI values; the nested path the blank nodes' values.
    assert.deepEqual(await found({ filters: [{ field: "range", value: `${SKOS}Concept` }] }), [
      "related",
    ]);
    assert.deepEqual(
      await found({ filters: [{ field: "range", value: `${SKOS}OrderedCollection` }] }),
      ["mixed"],
    );
    assert.deepEqual(
      await found({ filters: [{ field: "range.unionOf.first", value: `${SKOS}Concept` }] }),
      ["member", "mixed"],
    );
    assert.deepEqual(
      await found({
        filters: [{ field: "range.unionOf.rest.first", value: `${SKOS}ConceptScheme` }],
      }),
      ["mixed"],
    );
    assert.deepEqual(
      await found({
        anyOf: [{ field: "range", values: [`${SKOS}Concept`, `${SKOS}OrderedCollection`] }],
      }),
      ["mixed", "related"],
    );
    assert.deepEqual(
      await found({
        anyOf: [{ field: "range.unionOf.rest.first", values: [`${SKOS}Collection`, "none"] }],
      }),
      ["member"],
    );
    assert.deepEqual(
      await found({ ranges: [{ field: "range.unionOf.rest.first", gte: `${SKOS}ConceptS` }] }),
      ["mixed"],
    );
    assert.deepEqual(await found({ ranges: [{ field: "range", lte: `${SKOS}D` }] }), [
      "related",
    ]);
    // Facets count the scalar values of a field, and of a nested path.
    const faceted = await engine.search(ref, {
      facets: ["range", "range.unionOf.first", "range.unionOf.rest.first"],
      size: 0,
    });
    assert.deepEqual(faceted.facets, {
      range: [{ value: `${SKOS}Concept`, count: 1 }, {
        value: `${SKOS}OrderedCollection`,
        count: 1,
      }],
      "range.unionOf.first": [{ value: `${SKOS}Concept`, count: 2 }],
      "range.unionOf.rest.first": [{ value: `${SKOS}Collection`, count: 1 }, {
        value: `${SKOS}ConceptScheme`,
        count: 1,
      }],
    });
    // Sorts on a scalar field and on a nested path; documents without a value come last.
    const sorted = async (field: string, order: "asc" | "desc") =>
      (await engine.search(ref, { sort: [{ field, order }] })).hits.map((hit) =>
        hit.uri.split("/").pop()
      );
    assert.deepEqual(await sorted("range", "asc"), ["related", "mixed", "member"]);
    assert.deepEqual(await sorted("range.unionOf.rest.first", "desc"), [
      "mixed",
      "member",
      "related",
    ]);
    // Query DSL bodies speak the OpenSearch layout: objects under `<field>@node`.
    const dsl = {
      query: { term: { "range@node.unionOf@node.first.keyword": `${SKOS}Concept` } },
      sort: [{ uri: "asc" }],
    };
    if (engine.kind === "embedded") {
      await assertProblem(rawSearch(engine, ref, dsl), 501, "not-implemented");
    } else {
      const { response } = await rawSearch(engine, ref, dsl);
      const sources = (response.hits as { hits: { _source: Record<string, unknown> }[] }).hits
        .map((hit) => hit._source);
      assert.deepEqual(sources.map((source) => source.uri), [member.uri, mixed.uri]);
      assert.deepEqual(sources[1].range, [`${SKOS}OrderedCollection`]);
      assert.deepEqual(sources[1]["range@node"], [{
        "unionOf@node": {
          first: `${SKOS}Concept`,
          "rest@node": {
            first: `${SKOS}ConceptScheme`,
            rest: "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil",
          },
        },
      }]);
    }
    // Across two indices: one holds the field as a blank node only, the other as an IRI only.
    const other = { ...index(), collection: ARTICLES };
    await engine.upsert(other, [{ ...related, uri: `${related.uri}-2`, collection: ARTICLES }]);
    await engine.refresh(other);
    const across = await engine.searchMany([ref, other], {
      filters: [{ field: "range.unionOf.first", value: `${SKOS}Concept` }],
      facets: ["range"],
    });
    assert.deepEqual(across.hits.map((hit) => hit.uri.split("/").pop()).sort(), [
      "member",
      "mixed",
    ]);
    assert.deepEqual(across.facets?.range, [{ value: `${SKOS}OrderedCollection`, count: 1 }]);
    const both = await engine.searchMany([ref, other], {
      filters: [{ field: "range", value: `${SKOS}Concept` }],
    });
    assert.deepEqual(both.hits.map((hit) => hit.document), [
      related,
      { ...related, uri: `${related.uri}-2`, collection: ARTICLES },
    ]);
  });

  test("a field named like OpenSearch's object sibling is a field like any other", async ({ engine, index }) => {
    // A context term may end in `@node`, the suffix OpenSearch keeps objects under.
    const ref = index();
    const document = book(1, {
      "note@node": "plain",
      note: ["also plain", { by: "Ada" }],
      "deep@node@": { "inner@node": "x" },
    });
    assert.deepEqual(await engine.upsert(ref, [document]), { succeeded: 1, failed: [] });
    await engine.refresh(ref);
    const total = async (field: string, value: string) =>
      (await engine.search(ref, { filters: [{ field, value }] })).total;
    assert.equal(await total("note@node", "plain"), 1);
    assert.equal(await total("note", "also plain"), 1);
    assert.equal(await total("note", "plain"), 0);
    assert.equal(await total("note.by", "Ada"), 1);
    assert.equal(await total("deep@node@.inner@node", "x"), 1);
    const found = await engine.search(ref, { facets: ["note@node", "note"] });
    assert.deepEqual(found.hits.map((hit) => hit.document), [document]);
    assert.deepEqual(found.facets, {
      "note@node": [{ value: "plain", count: 1 }],
      note: [{ value: "also plain", count: 1 }],
    });
  });

  test("URIs longer than an OpenSearch _id are stored and removed", async ({ engine, index }) => {
    const ref = index();
    const long = `https://data.example.org/id/${"x".repeat(600)}`;
    assert.deepEqual(await engine.upsert(ref, [doc(long, { title: "Long" }), book(1)]), {
      succeeded: 2,
      failed: [],
    });
    await engine.refresh(ref);
    assert.deepEqual((await engine.search(ref, { q: "long" })).hits.map((hit) => hit.uri), [long]);
    assert.deepEqual(await collect(engine.listDocumentUris(ref)), [book(1).uri, long]);
    await engine.remove(ref, [long]);
    await engine.refresh(ref);
    assert.deepEqual(await collect(engine.listDocumentUris(ref)), [book(1).uri]);
  });

  /** Two collections' indices with known documents (`twoCollections`), ready to search. */
  const twoIndices = async (
    { engine, index }: SuiteContext,
  ): Promise<[CollectionIndexRef, CollectionIndexRef]> => {
    const books = { ...index(), collection: COLLECTION };
    const articles = { ...index(), collection: ARTICLES };
    for (const [ref, documents] of [[books, BOOKS], [articles, ARTICLE_DOCS]] as const) {
      await engine.ensureIndex(ref);
      assert.deepEqual(await engine.upsert(ref, documents), {
        succeeded: documents.length,
        failed: [],
      });
      await engine.refresh(ref);
    }
    return [books, articles];
  };

  test("several indices: one ranking, hits name their collection, totals and facets add up", async (context) => {
    const { engine } = context;
    const [books, articles] = await twoIndices(context);
    const both = [books, articles];
    const fox = await engine.searchMany(both, {
      q: "fox",
      facets: ["collection", "genre"],
      highlight: true,
    });
    assert.equal(fox.total, 5);
    assert.equal(fox.totalRelation, "eq");
    assert.deepEqual(
      fox.hits.map((hit) => hit.uri).sort(),
      [
        ...BOOKS.slice(0, 3),
        ...ARTICLE_DOCS.slice(0, 2),
      ].map((one) => one.uri).sort(),
    );
    for (const hit of fox.hits) assert.equal(hit.collection, hit.document.collection, hit.uri);
    // One ranking: scores never rise down the page, whichever collection a hit is from.
    const scores = fox.hits.map((hit) => hit.score as number);
    assert.ok(scores.every((score) => typeof score === "number" && score > 0), `${scores}`);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.ok(fox.hits.every((hit) => (hit.highlights?.text ?? []).join().includes("<em>")));
    // The collection facet counts hits per collection, adding up to the total.
    assert.deepEqual(fox.facets?.collection, [
      { value: COLLECTION, count: 3 },
      { value: ARTICLES, count: 2 },
    ]);
    assert.equal(fox.facetsRelation, "eq");
    assert.deepEqual(fox.facets?.genre, [{ value: "Fable", count: 3 }, {
      value: "News",
      count: 2,
    }]);
    // Counts add up before the top values are kept: Whale is neither index's top genre.
    const genres = await engine.searchMany(both, { size: 0, facets: ["genre"], facetSize: 1 });
    assert.equal(genres.total, 10);
    assert.deepEqual(genres.facets?.genre, [{ value: "Whale", count: 4 }]);
    // Field sorts interleave the collections; a field one index lacks sorts last there.
    const byYear = await engine.searchMany(both, { sort: [{ field: "year", order: "desc" }] });
    assert.deepEqual(
      byYear.hits.map((hit) => hit.document.year),
      [...BOOKS, ...ARTICLE_DOCS].map((one) => one.year).sort().reverse(),
    );
    const byPages = await engine.searchMany(both, {
      q: "whale",
      sort: [{ field: "pages", order: "asc" }],
    });
    assert.deepEqual(byPages.hits.map((hit) => hit.uri), [
      BOOKS[4].uri,
      BOOKS[3].uri,
      ...ARTICLE_DOCS.slice(3).map((one) => one.uri).sort(),
    ]);
    // No query, no sort: URI order over both.
    const all = await engine.searchMany(both, { size: 20 });
    assert.deepEqual(
      all.hits.map((hit) => hit.uri),
      [...BOOKS, ...ARTICLE_DOCS].map((one) => one.uri).sort(),
    );
    const fables = await engine.searchMany(both, {
      anyOf: [{ field: "genre", values: ["Fable", "News"] }],
      ranges: [{ field: "year", gte: "1990" }],
    });
    assert.deepEqual(
      fables.hits.map((hit) => hit.document.year),
      [...BOOKS, ...ARTICLE_DOCS].filter((one) => ["Fable", "News"].includes(String(one.genre)))
        .filter((one) => Number(one.year) >= 1990)
        .sort((a, b) => a.uri < b.uri ? -1 : 1).map((one) => one.year),
    );
    // One index answers as its own search does, its hits named; none answers nothing.
    const alone = await engine.searchMany([articles], { q: "fox", facets: ["genre"] });
    const single = await engine.search(articles, { q: "fox", facets: ["genre"] });
    assert.deepEqual(alone, {
      ...single,
      hits: single.hits.map((hit) => ({ ...hit, collection: ARTICLES })),
    });
    assert.deepEqual(await engine.searchMany([], { q: "fox", facets: ["collection"] }), {
      total: 0,
      totalRelation: "eq",
      from: 0,
      size: 10,
      clamped: null,
      hits: [],
      facets: { collection: [] },
      facetsRelation: "eq",
      facetsClamped: null,
    });
    // An index never written is skipped.
    const missing = { ...context.index(), collection: "https://data.example.org/collection/none" };
    assert.equal((await engine.searchMany([books, missing], { q: "fox" })).total, 3);
    const gone = { ...context.index(), collection: "https://data.example.org/collection/gone" };
    assert.equal((await engine.searchMany([missing, gone], { q: "fox" })).total, 0);
    // A hit is named by the index it was found in, whatever its document says.
    const stray = { ...context.index(), collection: "https://data.example.org/collection/stray" };
    await engine.upsert(stray, [docIn(ARTICLES, "https://data.example.org/id/stray", {
      title: "Stray fox",
    })]);
    await engine.refresh(stray);
    const named = await engine.searchMany([books, stray], { q: "stray" });
    assert.deepEqual(named.hits.map((hit) => hit.collection), [stray.collection]);
  });

  test("several indices: pages of the merge are slices of one big page", async (context) => {
    const { engine } = context;
    const both = await twoIndices(context);
    const requests = [
      { q: "fox" },
      {},
      { sort: [{ field: "year", order: "asc" as const }] },
      { q: "whale", sort: [{ field: "genre", order: "desc" as const }] },
    ];
    for (const request of requests) {
      const big = await engine.searchMany(both, { ...request, size: 10 });
      const paged = [];
      for (let from = 0; from < 10; from += 3) {
        const page = await engine.searchMany(both, { ...request, from, size: 3 });
        assert.equal(page.total, big.total, JSON.stringify(request));
        paged.push(...page.hits);
      }
      const key = (hit: { uri: string; collection?: string }) => `${hit.collection} ${hit.uri}`;
      assert.deepEqual(paged.map(key), big.hits.map(key), JSON.stringify(request));
    }
  });

  test("several indices sort as one index holding all their documents would", async ({ engine, index }) => {
    const [first, second, all] = [index(), index(), index()];
    const documents = [
      book(1, { name: "b", nums: [3, 10], flag: true, sortLabel: { any: "pear", en: "pear" } }),
      book(2, { name: "B", nums: [5], flag: false, sortLabel: { any: "apple", en: "zebra" } }),
      book(3, { name: "a\u{1F600}", nums: [1, 20], flag: true, sortLabel: { any: "fig" } }),
      book(4, { name: "a\uFFFD", flag: false, sortLabel: { any: "banana", en: "banana" } }),
      book(5, { name: "b", nums: [5, 7] }),
      book(6, { nums: [2], flag: true }),
      book(7, {
        name: "\u00e9",
        nums: [10],
        flag: false,
        sortLabel: { any: "cherry", en: "cherry" },
      }),
    ];
    for (
      const [ref, some] of [
        [first, documents.filter((_, n) => n % 2 === 0)],
        [second, documents.filter((_, n) => n % 2 === 1)],
        [all, documents],
      ] as const
    ) {
      await engine.ensureIndex(ref);
      await engine.upsert(ref, [...some]);
      await engine.refresh(ref);
    }
    const sorts: SearchSort[][] = [
      [{ field: "name", order: "asc" }],
      [{ field: "name", order: "desc" }],
      [{ field: "nums", order: "asc" }],
      [{ field: "nums", order: "desc" }],
      [{ field: "flag", order: "desc" }, { field: "name", order: "asc" }],
      // `label` is the reader's label sort key (label_fields.ts), merged as one index sorts it.
      [{ field: "label", order: "asc" }],
      [{ field: "label", order: "desc" }],
    ];
    for (const sort of sorts) {
      for (const language of [undefined, "en"]) {
        const merged = await engine.searchMany([first, second], { sort, language });
        const one = await engine.search(all, { sort, language });
        assert.deepEqual(
          merged.hits.map((hit) => hit.uri),
          one.hits.map((hit) => hit.uri),
          `${JSON.stringify(sort)} ${language}`,
        );
      }
    }
    // The label keys order the hits: "any" reader apple, banana, cherry, fig, pear, unlabelled.
    const byLabel = await engine.searchMany([first, second], {
      sort: [{ field: "label", order: "asc" }],
    });
    assert.deepEqual(
      byLabel.hits.slice(0, 5).map((hit) => hit.uri),
      [2, 4, 7, 3, 1].map((n) => book(n, {}).uri),
    );
  });

  test(
    "several indices: the window is clamped once, for the whole answer",
    async (context) => {
      const { engine, warnings } = context;
      const both = await twoIndices(context);
      const uris = [...BOOKS, ...ARTICLE_DOCS].map((one) => one.uri).sort();
      const first = await engine.searchMany(both, { size: 20 });
      assert.deepEqual(first.clamped, {
        requested: { from: 0, size: 20 },
        applied: { from: 0, size: 4 },
      });
      assert.deepEqual(first.hits.map((hit) => hit.uri), uris.slice(0, 4));
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      // maxWindow 7 holds for the merge: from 4 gets 3 hits, not 3 of each collection.
      const last = await engine.searchMany(both, { from: 4, size: 4 });
      assert.deepEqual(last.clamped?.applied, { from: 4, size: 3 });
      assert.deepEqual(last.hits.map((hit) => hit.uri), uris.slice(4, 7));
      const beyond = await engine.searchMany(both, { from: 9, size: 2 });
      assert.deepEqual(beyond.clamped?.applied, { from: 7, size: 0 });
      assert.deepEqual(beyond.hits, []);
      // Hits counted exactly up to trackTotalHits over the whole answer: 10 match.
      assert.equal(first.total, 8);
      assert.equal(first.totalRelation, "gte");
      assert.equal(warnings.length, 3);
      // A facet size beyond maxResultsLimit is clamped once too.
      const facets = await engine.searchMany(both, { size: 0, facets: ["genre"], facetSize: 9 });
      assert.deepEqual(facets.facetsClamped, { requested: 9, applied: 4 });
      assert.equal(facets.facets?.genre.length, 4);
    },
    { maxResultsLimit: 4, maxWindow: 7, trackTotalHits: 8 },
  );

  test("health reports a working engine", async ({ engine }) => {
    const health = await engine.health();
    assert.equal(health.ok, true, health.detail);
  });
}

defineSearchEngineSuite("embedded", (limits, warn) => {
  const db = openLocalDatabase(":memory:");
  const engine = new EmbeddedSearchEngine(db, { limits, warn });
  return Promise.resolve({
    engine,
    dispose: async () => {
      await engine.close();
      db.close();
    },
  });
});

/**
 * The embedded engine with its document writes made on its behalf by a second engine on a
 * connection of its own, as the service's indexing workers make the outbox's; the write and
 * its answer cross a structured clone, as `postMessage` does.
 */
async function engineWritingElsewhere(limits: SearchLimits, warn: ClampWarning) {
  const dir = await Deno.makeTempDir({ prefix: "rcs-test-" });
  const writerDb = openLocalDatabase(dir);
  const writer = new EmbeddedSearchEngine(writerDb, { limits, warn: () => {} });
  const db = openLocalDatabase(dir);
  const local = new EmbeddedSearchEngine(db, { limits, warn });
  const write = async (request: EngineWriteRequest) => {
    const written = structuredClone(
      await writer.writeHere(structuredClone({ ...request, ...local.writeContext() })),
    );
    local.noteWrittenElsewhere(written.facets);
    return written.result;
  };
  const engine = new Proxy(local, {
    get(target, property) {
      if (property === "upsert") {
        return (index: IndexTarget, documents: SearchDocument[]) =>
          write({ kind: "upsert", target: index, documents });
      }
      if (property === "remove") {
        return (index: IndexTarget, uris: string[]) =>
          write({ kind: "remove", target: index, uris });
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    engine,
    writer,
    dispose: async () => {
      db.close();
      writerDb.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

defineSearchEngineSuite("embedded-writes-elsewhere", engineWritingElsewhere);

Deno.test("[embedded] writes on another connection keep the facet values held exact", async () => {
  const { engine, writer, dispose } = await engineWritingElsewhere(DEFAULT_LIMITS, () => {});
  try {
    const ref: CollectionIndexRef = {
      collection: COLLECTION,
      indexName: "held-facets",
      mappings: {},
    };
    const genres = ["poetry", "drama", "essay"];
    await engine.upsert(ref, [0, 1, 2, 3, 4, 5].map((n) => book(n, { genre: genres[n % 3] })));
    const counts = async (searched: SearchEngine) =>
      Object.fromEntries(
        (await searched.search(ref, { facets: ["genre"], size: 0 })).facets!.genre
          .map(({ value, count }) => [value, count]),
      );
    assert.deepEqual(await counts(engine), { poetry: 2, drama: 2, essay: 2 });
    const [physical] = Object.keys(engine.heldFacetFields());
    // Written by the other engine, reported back: the values stay held and count the write.
    await engine.upsert(ref, [book(0, { genre: "drama" }), book(9, { genre: "essay" })]);
    await engine.remove(ref, [book(1).uri]);
    assert.deepEqual(engine.heldFacetFields(), { [physical]: ["genre"] });
    assert.deepEqual(await counts(engine), { poetry: 1, drama: 2, essay: 3 });
    assert.deepEqual(await counts(engine), await counts(writer));
    // A write sent before the values were held reports no field: they stay held, and the
    // documents it wrote are read again by id.
    const sentEarlier = await writer.writeHere({
      kind: "upsert",
      target: ref,
      documents: [book(2, { genre: "poetry" }), book(11, { genre: "essay" })],
      rebuilds: [],
      heldFacets: {},
    });
    engine.noteWrittenElsewhere(sentEarlier.facets);
    assert.deepEqual(engine.heldFacetFields(), { [physical]: ["genre"] });
    assert.deepEqual(await counts(engine), { poetry: 2, drama: 2, essay: 3 });
    // A write the engine was not told of: its values are read again, not trusted.
    await writer.upsert(ref, [book(10, { genre: "poetry" })]);
    assert.deepEqual(await counts(engine), { poetry: 3, drama: 2, essay: 3 });
    // A rebuild this engine runs is written to by the other engine's writes as well.
    const target = await engine.beginRebuild(ref);
    await engine.upsert(target, [book(20, { genre: "essay" })]);
    await engine.upsert(ref, [book(21, { genre: "poetry" })]);
    await engine.commitRebuild(target);
    assert.deepEqual(await counts(engine), { poetry: 1, essay: 1 });
  } finally {
    await dispose();
  }
});

const url = openSearchUrl();
if (url === undefined) reportOpenSearchSkipped();
defineSearchEngineSuite(
  "opensearch",
  (limits, warn, indexPrefix) => {
    const engine = new OpenSearchEngine({ ...OPENSEARCH_DEFAULTS, node: url!, limits, warn });
    return Promise.resolve({
      engine,
      dispose: async () => {
        await engine.close();
        await deleteIndicesWithPrefix(url!, indexPrefix);
      },
    });
  },
  { ignore: url === undefined },
);

Deno.test("OpenSearchEngine: an unreachable node is 503 search-unavailable", async () => {
  const engine = new OpenSearchEngine({
    ...OPENSEARCH_DEFAULTS,
    node: "http://127.0.0.1:9",
    limits: DEFAULT_LIMITS,
    timeouts: { searchMs: 2000, bulkMs: 2000, adminMs: 2000 },
    bulk: { maxAttempts: 2, initialBackoffMs: 10 },
  });
  const ref = { collection: COLLECTION, indexName: "unreachable" };
  try {
    await assertProblem(engine.search(ref, { q: "x" }), 503, "search-unavailable");
    await assertProblem(engine.upsert(ref, [book(1)]), 503, "search-unavailable");
    const health = await engine.health();
    assert.equal(health.ok, false);
    assert.match(health.detail, /127\.0\.0\.1:9/);
  } finally {
    await engine.close();
  }
});

Deno.test("OpenSearchEngine: bulk writes retry 429 and 5xx answers (stand-in node)", async () => {
  // A stand-in node that first refuses: the retry policy, not OpenSearch, is under test here.
  const answers = [
    () => Response.json({ error: { type: "unavailable" } }, { status: 503 }),
    (lines: string[]) =>
      Response.json({
        errors: true,
        items: lines.map((_, n) => ({ index: { status: n === 0 ? 201 : 429 } })),
      }),
    (lines: string[]) =>
      Response.json({ errors: false, items: lines.map(() => ({ index: { status: 201 } })) }),
  ];
  const bulkSizes: number[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    if (request.method === "HEAD") return new Response(null, { status: 200 });
    // The engine's one look at the index's layout (layout_upgrade.ts): nothing to upgrade.
    if (request.method === "GET") return Response.json({});
    const lines = (await request.text()).trim().split("\n").filter((_, n) => n % 2 === 0);
    bulkSizes.push(lines.length);
    return answers[Math.min(bulkSizes.length - 1, answers.length - 1)](lines);
  });
  const engine = new OpenSearchEngine({
    ...OPENSEARCH_DEFAULTS,
    node: `http://127.0.0.1:${server.addr.port}`,
    limits: DEFAULT_LIMITS,
    bulk: { initialBackoffMs: 1, maxDocuments: 3 },
  });
  try {
    const ref = { collection: COLLECTION, indexName: "retried" };
    const result = await engine.upsert(ref, [1, 2, 3, 4].map((n) => book(n)));
    assert.deepEqual(result, { succeeded: 4, failed: [] });
    // 3 refused whole, 3 with two 429s, the two 429s again, then the fourth document.
    assert.deepEqual(bulkSizes, [3, 3, 2, 1]);
  } finally {
    await engine.close();
    await server.shutdown();
  }
});

Deno.test({
  name: "OpenSearchEngine: a dead node first in the list, searches and writes fail over",
  ignore: url === undefined,
  fn: async () => {
    // Nothing listens there: the round goes to it first, then on to the real node.
    const dead = `http://127.0.0.1:${freePort()}`;
    const prefix = uniqueIndexPrefix("failover");
    const engine = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: [dead, url!],
      limits: DEFAULT_LIMITS,
    });
    const ref = { collection: COLLECTION, indexName: `${prefix}books` };
    try {
      assert.deepEqual(
        await engine.upsert(ref, [book(1, { title: "Failover fox" }), book(2, { title: "Dog" })]),
        { succeeded: 2, failed: [] },
      );
      await engine.refresh(ref);
      for (let round = 0; round < 3; round++) {
        const found = await engine.search(ref, { q: "fox" });
        assert.deepEqual(found.hits.map((hit) => hit.uri), [book(1).uri]);
      }
      assert.deepEqual(await engine.remove(ref, [book(2).uri]), { succeeded: 1, failed: [] });
      await engine.refresh(ref);
      assert.deepEqual(await collect(engine.listDocumentUris(ref)), [book(1).uri]);
      const health = await engine.health();
      assert.equal(health.ok, true, health.detail);
      assert.equal(health.detail.split(": ")[0], `opensearch at ${dead}, ${url}`);
    } finally {
      await engine.close();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});

Deno.test("OpenSearchEngine: no node answers, the 503 names every node, not a password", async () => {
  const nodes = [freePort(), freePort()].map((port) => `http://svc:pw-4e1@127.0.0.1:${port}/`);
  const engine = new OpenSearchEngine({
    ...OPENSEARCH_DEFAULTS,
    node: nodes,
    limits: DEFAULT_LIMITS,
  });
  try {
    await assert.rejects(
      engine.search({ collection: COLLECTION, indexName: "gone" }, {}),
      (thrown) => {
        const error = asProblem(thrown);
        assert.ok(
          error instanceof ProblemError && error.slug === "search-unavailable",
          String(thrown),
        );
        const [first, second] = nodes.map((node) => `http://${new URL(node).host}`);
        const where = `OpenSearch at ${first}, ${second} cannot serve the request: `;
        // The reason comes with the node it is about: the last one tried.
        assert.ok(
          [first, second].some((node) => error.message.startsWith(`${where}${node}: connect `)),
          error.message,
        );
        assert.ok(!error.message.includes("pw-4e1"), error.message);
        return true;
      },
    );
  } finally {
    await engine.close();
  }
});

/**
 * A node in front of the real one that lets only `authorization` through, and records what
 * each request carried: basic auth as a secured cluster checks it.
 */
function authenticatingNode(target: string, authorization: string, seen: (string | null)[]) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    seen.push(request.headers.get("Authorization"));
    if (request.headers.get("Authorization") !== authorization) {
      return Response.json({ error: { type: "security_exception", reason: "unauthorized" } }, {
        status: 401,
      });
    }
    const { pathname, search } = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD"
      ? undefined
      : await request.arrayBuffer();
    const answer = await fetch(`${target}${pathname}${search}`, {
      method: request.method,
      headers: { "Content-Type": request.headers.get("Content-Type") ?? "application/json" },
      body,
    });
    return new Response(request.method === "HEAD" ? null : await answer.arrayBuffer(), {
      status: answer.status,
      headers: { "Content-Type": answer.headers.get("Content-Type") ?? "application/json" },
    });
  });
}

Deno.test({
  name: "OpenSearchEngine: basic auth goes to every node of the list",
  ignore: url === undefined,
  sanitizeResources: false,
  fn: async () => {
    const authorization = `Basic ${btoa("indexer:s3cret")}`;
    const seen: (string | null)[][] = [[], []];
    const nodes = seen.map((log) => authenticatingNode(url!, authorization, log));
    const nodeUrls = nodes.map((node) => `http://127.0.0.1:${node.addr.port}`);
    const prefix = uniqueIndexPrefix("auth");
    const ref = { collection: COLLECTION, indexName: `${prefix}books` };
    const engine = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: nodeUrls,
      username: "indexer",
      password: "s3cret",
      limits: DEFAULT_LIMITS,
    });
    const anonymous = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: nodeUrls,
      limits: DEFAULT_LIMITS,
    });
    try {
      assert.deepEqual(await engine.upsert(ref, [book(1, { title: "Guarded fox" })]), {
        succeeded: 1,
        failed: [],
      });
      await engine.refresh(ref);
      for (let round = 0; round < 4; round++) {
        assert.equal((await engine.search(ref, { q: "fox" })).total, 1);
      }
      for (const [n, log] of seen.entries()) {
        assert.ok(log.length >= 2, `node ${n} got ${log.length} requests: requests go round`);
        assert.ok(log.every((header) => header === authorization), `node ${n}: ${log}`);
      }
      await assertProblem(anonymous.search(ref, { q: "fox" }), 502, "search-error");
    } finally {
      await engine.close();
      await anonymous.close();
      for (const node of nodes) await node.shutdown();
      await deleteIndicesWithPrefix(url!, prefix);
    }
  },
});
