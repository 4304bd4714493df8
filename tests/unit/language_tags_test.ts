/**
 * Language tags kept as written (src/rdf/language_tags.ts): the literal and its id, every
 * parser and writer, the spellings that give oxigraph's lower-cased answers their case back,
 * the canonical form (lower case, as RDFC-1.0 has it), the embedded term dictionary (one
 * term per tag whatever its case, stored as first written, older lower-cased rows found),
 * and the fallback path's `lang()` variables.
 */
import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
// @ts-types="@types/n3"
import { DataFactory, type Literal, type Quad, type Term, termToId } from "n3";
import {
  literal,
  lowerCaseTag,
  TagSpellings,
  termFromId,
  termIdentity,
} from "../../src/rdf/language_tags.ts";
import type { RdfFormat } from "../../src/rdf/formats.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import { serializeRdf } from "../../src/rdf/serialize.ts";
import { canonicalHash, canonicalize } from "../../src/rdf/canonical_hash.ts";
import { TermDictionary, termHash } from "../../src/store_embedded/term_dictionary.ts";
import {
  langVariables,
  queryTags,
  restoreBindings,
} from "../../src/store_embedded/written_tags.ts";
import { sparqlParser } from "../../src/sparql_protocol/parser.ts";
import { streamText } from "../support/rdf_fixtures.ts";
import { distinctQuads } from "../../src/rdf/dedupe.ts";

const S = "http://example.org/s";
const P = "http://example.org/p";
/** Tags as a user writes them, and one already in lower case. */
const WRITTEN = ["en-US", "de-CH-1996", "sr-Latn-RS", "fr"];

const tagsOf = (quads: readonly Quad[]) =>
  quads.map((quad) => (quad.object as Literal).language).sort();

Deno.test("a literal keeps its tag as written, in its id and its language", () => {
  const colour = literal("colour", "en-US");
  assert.equal(colour.language, "en-US");
  assert.equal(colour.id, '"colour"@en-US');
  assert.equal(termToId(colour), '"colour"@en-US');
  assert.equal(colour.datatype.value, "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString");
  const back = termFromId('"colour"@en-US') as Literal;
  assert.equal(back.language, "en-US");
  assert.equal(back.value, "colour");
  assert.ok(back.equals(colour));
  // N3.js's own factory lower-cases: what this module exists for.
  assert.equal(DataFactory.literal("colour", "en-US").language, "en-us");
  // Typed and plain literals are N3.js's.
  assert.equal(
    (termFromId('"5"^^http://www.w3.org/2001/XMLSchema#integer') as Literal).language,
    "",
  );
  assert.equal(literal("plain").id, '"plain"');
});

/** The same graph in each input syntax, tags written in mixed case. */
const INPUTS: [RdfFormat, string][] = [
  ["turtle", `<${S}> <${P}> ${WRITTEN.map((tag, i) => `"v${i}"@${tag}`).join(", ")} .`],
  ["ntriples", WRITTEN.map((tag, i) => `<${S}> <${P}> "v${i}"@${tag} .`).join("\n")],
  ["n3", `<${S}> <${P}> ${WRITTEN.map((tag, i) => `"v${i}"@${tag}`).join(", ")} .`],
  [
    "jsonld",
    JSON.stringify({
      "@id": S,
      [P]: WRITTEN.map((tag, i) => ({ "@value": `v${i}`, "@language": tag })),
    }),
  ],
  [
    "rdfjson",
    JSON.stringify({
      [S]: { [P]: WRITTEN.map((tag, i) => ({ type: "literal", value: `v${i}`, lang: tag })) },
    }),
  ],
  [
    "rdfxml",
    // One tag inherited from the element around, one in single quotes.
    `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
  <rdf:Description rdf:about="${S}" xml:lang="en-US"><ex:p>v0</ex:p>
    <ex:p xml:lang='de-CH-1996'>v1</ex:p><ex:p xml:lang="sr-Latn-RS">v2</ex:p>
    <ex:p xml:lang="fr">v3</ex:p></rdf:Description></rdf:RDF>`,
  ],
];

const OUTPUTS: RdfFormat[] = [
  "jsonld",
  "rdfjson",
  "turtle",
  "ntriples",
  "nquads",
  "rdfxml",
  "n3",
  "trig",
];

Deno.test("every parser keeps tags as written, and every writer writes them so", async () => {
  for (const [format, text] of INPUTS) {
    const { quads } = await parseRdf(text, format);
    assert.deepEqual(tagsOf(quads), [...WRITTEN].sort(), `parsing ${format}`);
    for (const output of OUTPUTS) {
      const written = await streamText(serializeRdf(quads, output));
      for (const tag of WRITTEN) {
        assert.ok(written.includes(tag), `${format} → ${output}: ${tag} in ${written}`);
      }
      const back = await parseRdf(written, output);
      assert.deepEqual(tagsOf(back.quads), [...WRITTEN].sort(), `${format} → ${output} → back`);
    }
  }
});

Deno.test("spellings: one per lower-case tag, the first in code point order", () => {
  for (const order of [["en-us", "en-US", "EN-us"], ["EN-us", "en-us", "en-US"]]) {
    const spellings = new TagSpellings();
    for (const tag of order) spellings.note(tag);
    // Upper case sorts first: "EN-us" < "en-US".
    assert.equal(spellings.spell("en-us"), "EN-us", order.join());
  }
  const spellings = TagSpellings.of(["de-CH"]);
  assert.equal(spellings.spell("de-ch"), "de-CH");
  assert.equal(spellings.spell("DE-ch"), "de-CH");
  assert.equal(spellings.spell("fr"), "fr");
  // Lower-case tags need no spelling: none kept.
  const lower = new TagSpellings();
  lower.note("en-us");
  assert.ok(lower.empty);
  const quad = DataFactory.quad(
    DataFactory.namedNode(S),
    DataFactory.namedNode(P),
    DataFactory.literal("Grüezi", "de-ch"),
  );
  assert.equal((spellings.restoreQuad(quad).object as Literal).language, "de-CH");
  const noted = new TagSpellings();
  noted.noteId('"Grüezi"@de-CH');
  noted.noteId('"x"^^http://example.org/@DT');
  noted.noteId("http://example.org/@Iri");
  assert.deepEqual(noted.written(), ["de-CH"]);
});

Deno.test("the canonical form has tags in lower case: one hash for either spelling", async () => {
  const quad = (tag: string) =>
    DataFactory.quad(DataFactory.namedNode(S), DataFactory.namedNode(P), literal("colour", tag));
  assert.equal(await canonicalize([quad("en-US")]), `<${S}> <${P}> "colour"@en-us .\n`);
  assert.equal(
    (await canonicalHash([quad("en-US")])).hash,
    (await canonicalHash([quad("en-us")])).hash,
  );
  // Both spellings are one triple.
  assert.equal((await canonicalHash([quad("en-US"), quad("en-us")])).quads, 1);
  assert.equal(lowerCaseTag(literal("a", "en-US")).id, '"a"@en-us');
  const iri = DataFactory.namedNode("http://example.org/EN");
  assert.equal(lowerCaseTag(iri), iri);
});

Deno.test("a term's identity is its id with the tag in lower case", () => {
  assert.equal(termIdentity('"colour"@en-US'), '"colour"@en-us');
  assert.equal(termIdentity('"colour"@en-us'), '"colour"@en-us');
  assert.equal(termIdentity('"A"@B"@en-GB'), '"A"@B"@en-gb');
  assert.equal(termIdentity('"X"^^http://example.org/T'), '"X"^^http://example.org/T');
  assert.equal(termIdentity("http://example.org/A"), "http://example.org/A");
});

Deno.test("the term dictionary: one term per tag whatever its case, kept as first written", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE terms (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, term TEXT NOT NULL)");
  // A row written before tags were kept: lower-cased by the parser then.
  db.prepare("INSERT INTO terms (id, hash, term) VALUES (1, ?, ?)")
    .run(termHash('"old"@en-gb'), '"old"@en-gb');
  const terms = new TermDictionary(db);
  assert.equal(terms.find('"old"@en-GB'), 1);
  assert.deepEqual(terms.idsOf(['"old"@EN-gb']), [1]);
  const [colour, same, other] = terms.idsOf(['"colour"@en-US', '"colour"@en-us', '"colour"@fr']);
  assert.equal(same, colour);
  assert.notEqual(other, colour);
  const stored = db.prepare("SELECT term FROM terms WHERE id = ?").get(colour) as { term: string };
  assert.equal(stored.term, '"colour"@en-US');
  // A fresh connection's look-up (no cache) finds it by either spelling.
  const fresh = new TermDictionary(db);
  assert.equal(fresh.find('"colour"@en-us'), colour);
  assert.equal(fresh.find('"colour"@EN-US'), colour);
  assert.equal(fresh.find('"colour"@en'), undefined);
  db.close();
});

Deno.test("fallback answers: lang() variables and literals get the written tag back", () => {
  const query = sparqlParser().parse(
    `SELECT ?o (LANG(?o) AS ?l) ?m ?n WHERE { ?s ?p ?o BIND(lang(?o) AS ?m) BIND(str(?o) AS ?n) }`,
  );
  assert.deepEqual(langVariables(query).sort(), ["l", "m"]);
  assert.deepEqual(queryTags(`SELECT * { ?s ?p "a"@en-GB FILTER(?o != 'b'@DE) } # x@Y`), [
    "en-GB",
    "DE",
  ]);
  const row = new Map<string, Term>([
    ["o", DataFactory.literal("colour", "en-us")],
    ["l", DataFactory.literal("en-us")],
    ["m", DataFactory.literal("en-us")],
    ["n", DataFactory.literal("en-us")],
  ]);
  const [restored] = restoreBindings([row], { tags: ["en-US"], langVariables: ["l", "m"] });
  assert.equal((restored.get("o") as Literal).language, "en-US");
  assert.equal(restored.get("l")!.value, "en-US");
  assert.equal(restored.get("m")!.value, "en-US");
  // A string that is not a lang() value stays as the engine answered.
  assert.equal(restored.get("n")!.value, "en-us");
});

Deno.test("a graph holds one triple for two spellings of a tag, the first one met", () => {
  const quad = (tag: string) =>
    DataFactory.quad(DataFactory.namedNode(S), DataFactory.namedNode(P), literal("colour", tag));
  const distinct = distinctQuads([quad("en-US"), quad("en-us"), quad("EN-US")]);
  assert.equal(distinct.length, 1);
  assert.equal((distinct[0].object as Literal).language, "en-US");
});

Deno.test("JSON-LD: a context's default language and a language map keep their tags", async () => {
  const doc = {
    "@context": {
      "@language": "en-US",
      title: { "@id": P, "@container": "@language" },
      note: { "@id": `${P}/note` },
    },
    "@id": S,
    title: { "de-CH": "Farbe", "sr-Latn-RS": "boja" },
    note: "colour",
  };
  const { quads } = await parseRdf(JSON.stringify(doc), "jsonld");
  assert.deepEqual(tagsOf(quads), ["de-CH", "en-US", "sr-Latn-RS"]);
});
