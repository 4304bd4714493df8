import { strict as assert } from "node:assert";
import { DataFactory, Parser, type Quad } from "n3";
import { buildSearchDocument, searchFieldNames } from "../../src/search/documents.ts";
import { RESERVED_SEARCH_FIELDS } from "../../src/fields/field_names.ts";
import { SEARCH_LANGUAGES } from "../../src/fields/languages.ts";

const ITEM = "https://data.example.org/id/book/1";

function turtle(text: string): Quad[] {
  return new Parser().parse(`
    @prefix schema: <https://schema.org/> .
    @prefix dc: <http://purl.org/dc/elements/1.1/> .
    @prefix dcterms: <http://purl.org/dc/terms/> .
    @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
    @prefix ex: <https://vocab.example.org/ns/> .
    ${text}
  `);
}

function build(quads: Quad[], context?: Record<string, unknown>) {
  return buildSearchDocument({
    uri: ITEM,
    collection: "https://data.example.org/collection/books",
    workspace: "https://data.example.org/workspace/demo",
    hash: "f".repeat(64),
    modified: "2025-03-04T05:06:07.000Z",
    quads,
  }, { context });
}

Deno.test("a document holds the item's properties under local names, typed", () => {
  const document = build(turtle(`
    <${ITEM}> a schema:Book, schema:CreativeWork ;
      schema:name "Moby Dick" ;
      schema:numberOfPages 635 ;
      schema:price "12.50"^^xsd:decimal ;
      schema:isFamilyFriendly true ;
      schema:inLanguage "en", "de" ;
      schema:sameAs <https://www.wikidata.org/wiki/Q174596> ;
      schema:dateCreated "1851-10-18"^^xsd:date ;
      schema:bookEdition "ninth"^^xsd:integer .
  `));
  assert.deepEqual(document, {
    uri: ITEM,
    collection: "https://data.example.org/collection/books",
    workspace: "https://data.example.org/workspace/demo",
    types: ["https://schema.org/Book", "https://schema.org/CreativeWork"],
    hash: "f".repeat(64),
    // The item's label (schema:name), and its sort key for every reader language.
    labels: "Moby Dick",
    sortLabel: Object.fromEntries(
      ["any", ...SEARCH_LANGUAGES].map((language) => [language, "moby dick"]),
    ),
    modified: "2025-03-04T05:06:07.000Z",
    bookEdition: "ninth",
    dateCreated: "1851-10-18",
    inLanguage: ["de", "en"],
    isFamilyFriendly: true,
    name: "Moby Dick",
    numberOfPages: 635,
    price: 12.5,
    sameAs: "https://www.wikidata.org/wiki/Q174596",
    text: ["12.50", "1851-10-18", "635", "Moby Dick", "de", "en", "ninth", "true"].join("\n"),
  });
});

Deno.test("blank nodes become nested objects; cycles and other subjects do not", () => {
  const document = build(turtle(`
    <${ITEM}> schema:author [ a schema:Person ; schema:name "Herman Melville" ;
                              schema:address [ schema:addressLocality "New York" ] ] ;
              schema:about <https://data.example.org/id/whale> .
    <https://data.example.org/id/whale> schema:name "Sperm whale" .
    _:a schema:knows _:b . _:b schema:knows _:a ; schema:name "Loop" .
    <${ITEM}> schema:contributor _:a .
  `));
  assert.deepEqual(document.author, {
    address: { addressLocality: "New York" },
    name: "Herman Melville",
    types: ["https://schema.org/Person"],
  });
  assert.equal(document.about, "https://data.example.org/id/whale");
  assert.deepEqual(document.contributor, { knows: { name: "Loop" } });
  assert.ok(document.text.split("\n").includes("Sperm whale"), "every literal is in text");
  assert.ok(document.text.split("\n").includes("Loop"));
});

Deno.test("clashing and reserved local names get a namespace suffix", () => {
  const document = build(turtle(`
    <${ITEM}> dc:title "Plain title" ; dcterms:title "Terms title" ;
      dcterms:modified "2020-01-01" ; ex:text "Body" ; ex:uri "x" ; ex:_id "id" ;
      <https://other.example.org/vocab#label> "Label" ; ex:a.b "dotted" ; ex:text_de "Wort" .
  `));
  assert.equal(document.text_de, undefined, "a language field only holds tagged literals");
  assert.equal(document.text_de_ns, "Wort");
  assert.equal(document.title_dc, "Plain title");
  assert.equal(document.title_dcterms, "Terms title");
  assert.equal(document.title, undefined);
  assert.equal(document.modified, "2025-03-04T05:06:07.000Z");
  assert.equal(document.modified_dcterms, "2020-01-01");
  assert.equal(document.text_ns, "Body");
  assert.equal(document.uri, ITEM);
  assert.equal(document.uri_ns, "x");
  assert.equal(document.id, "id");
  assert.equal(document.label, "Label");
  assert.equal(document.a_b, "dotted");
  for (const field of RESERVED_SEARCH_FIELDS) assert.notEqual(document[field], undefined);
});

Deno.test("field names stay unique when namespace tokens collide", () => {
  const names = searchFieldNames([
    "https://a.example.org/ns/name",
    "https://b.example.org/ns/name",
    "https://c.example.org/ns#name",
  ]);
  assert.equal(new Set(names.values()).size, 3);
  assert.deepEqual([...names.values()].map((name) => name.startsWith("name_ns")), [
    true,
    true,
    true,
  ]);
  assert.deepEqual(
    searchFieldNames(["https://c.example.org/ns#name"]),
    new Map([["https://c.example.org/ns#name", "name"]]),
  );
});

Deno.test("the same graph gives the same document whatever the order and blank labels", () => {
  const quads = turtle(`
    <${ITEM}> schema:name "B", "A", "C" ; schema:author [ schema:name "X" ], [ schema:name "W" ] ;
      schema:keywords "k2", "k1" .
  `);
  const relabelled = quads.map((quad) => {
    const rename = <T extends Quad["subject"] | Quad["object"]>(term: T) =>
      term.termType === "BlankNode" ? DataFactory.blankNode(`other_${term.value}`) as T : term;
    return DataFactory.quad(rename(quad.subject), quad.predicate, rename(quad.object));
  }).reverse();
  const first = build(quads);
  const second = build(relabelled);
  assert.deepEqual(second, first);
  assert.equal(JSON.stringify(second), JSON.stringify(first));
  assert.deepEqual(first.name, ["A", "B", "C"]);
  assert.deepEqual(first.author, [{ name: "W" }, { name: "X" }]);
});

Deno.test("a collection context names fields by term, CURIE and @vocab", () => {
  const context = {
    "@context": {
      "@vocab": "https://schema.org/",
      dct: "http://purl.org/dc/terms/",
      headline: { "@id": "dct:title" },
      ex: "https://vocab.example.org/ns/",
      pages: "https://schema.org/numberOfPages",
    },
  };
  const document = build(
    turtle(`
      <${ITEM}> dcterms:title "Headline" ; dcterms:creator "Someone" ; schema:numberOfPages 3 ;
        schema:name "Name" ; ex:rating 5 ; <https://unmapped.example.org/terms/shelf> "B4" .
    `),
    context,
  );
  assert.equal(document.headline, "Headline");
  assert.equal(document["dct:creator"], "Someone");
  assert.equal(document.pages, 3);
  assert.equal(document.name, "Name");
  assert.equal(document["ex:rating"], 5);
  assert.equal(document.shelf, "B4");
});

Deno.test("an item without triples still has the service's fields", () => {
  const document = build([]);
  assert.deepEqual(document.types, []);
  assert.equal(document.text, "");
  assert.deepEqual(Object.keys(document).sort(), [...RESERVED_SEARCH_FIELDS].sort());
});

Deno.test("labels: the item's own, searched and sorted in the reader's language", () => {
  const uri = "https://data.example.org/id/concept/1";
  const document = buildSearchDocument({
    uri,
    collection: "c",
    workspace: "w",
    hash: "0".repeat(64),
    modified: "2025-01-01T00:00:00.000Z",
    quads: new Parser().parse(`
      @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
      @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
      <${uri}> skos:prefLabel "Datová sada"@cs, "Dataset"@en, "Datensatz"@de ;
        rdfs:comment "not a label" ; skos:broader [ rdfs:label "a blank node's" ] .
      <https://data.example.org/id/other> rdfs:label "another resource's" .`),
  });
  assert.equal(document.labels, "Dataset\nDatensatz\nDatová sada");
  const keys = document.sortLabel as Record<string, string>;
  assert.equal(keys.any, "dataset");
  assert.equal(keys.de, "datensatz");
  assert.equal(keys.fr, "dataset");
});

Deno.test("labels: a literal too long for a label is text only, not copied per language", () => {
  const uri = "https://data.example.org/id/long/1";
  const long = "Word ".repeat(1000); // 5,000 characters
  const document = buildSearchDocument({
    uri,
    collection: "c",
    workspace: "w",
    hash: "0".repeat(64),
    modified: "2025-01-01T00:00:00.000Z",
    quads: [
      DataFactory.quad(
        DataFactory.namedNode(uri),
        DataFactory.namedNode("http://purl.org/dc/terms/title"),
        DataFactory.literal(long),
      ),
      DataFactory.quad(
        DataFactory.namedNode(uri),
        DataFactory.namedNode("http://www.w3.org/2000/01/rdf-schema#label"),
        DataFactory.literal("Short"),
      ),
    ],
  });
  assert.equal(document.labels, "Short");
  assert.equal((document.sortLabel as Record<string, string>).any, "short");
  assert.ok((document.text as string).includes(long.trim()), "the long literal is searched");
});
