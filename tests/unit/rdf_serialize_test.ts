/**
 * serializeRdf and its writers: streaming behaviour, exact escaping, what each format
 * refuses, and the cases the round-trip fixtures do not reach.
 */
import { strict as assert } from "node:assert";
import jsonld from "jsonld";
// @ts-types="@types/n3"
import { DataFactory, type Quad } from "n3";
import oxigraph from "oxigraph";
import type { RdfFormat } from "../../src/rdf/formats.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import { serializeRdf } from "../../src/rdf/serialize.ts";
import { LOOKAHEAD_QUADS } from "../../src/rdf/writers/rdfxml.ts";
import { canonicalNQuads, streamText } from "../support/rdf_fixtures.ts";

const { namedNode, blankNode, literal, quad } = DataFactory;
const ALL_FORMATS: RdfFormat[] = [
  "jsonld",
  "rdfjson",
  "turtle",
  "ntriples",
  "nquads",
  "rdfxml",
  "n3",
  "trig",
];
const ex = (local: string) => namedNode(`http://example.org/${local}`);

/** Rejection message of reading a stream to its end. */
async function streamError(stream: ReadableStream<Uint8Array>): Promise<string> {
  try {
    await streamText(stream);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  assert.fail("the stream was expected to fail");
}

Deno.test("quads are pulled only as the stream is read, in chunks of about 64 KiB", async () => {
  let pulled = 0;
  async function* source() {
    for (let i = 0; i < 200_000; i++) {
      pulled++;
      yield quad(ex(`s${i}`), ex("p"), literal(`value ${i}`));
    }
  }
  const reader = serializeRdf(source(), "ntriples").getReader();
  const first = await reader.read();
  assert.ok(first.value && first.value.byteLength >= 60_000 && first.value.byteLength < 70_000);
  // One chunk read, at most one more queued ahead: a few thousand quads, not 200 000.
  assert.ok(pulled < 5_000, `pulled ${pulled} quads for one chunk`);
  await reader.cancel();
});

Deno.test("cancelling the stream closes the source iterator", async () => {
  let closed = false;
  async function* source() {
    try {
      for (let i = 0;; i++) yield quad(ex(`s${i}`), ex("p"), literal("x".repeat(100)));
    } finally {
      closed = true;
    }
  }
  const reader = serializeRdf(source(), "turtle").getReader();
  await reader.read();
  await reader.cancel();
  assert.ok(closed);
});

Deno.test("an empty graph is a valid, empty document in every format", async () => {
  for (const format of ALL_FORMATS) {
    const text = await streamText(serializeRdf([], format));
    assert.equal((await parseRdf(text, format)).quads.length, 0, format);
  }
});

Deno.test("N-Triples escapes literals and IRIs canonically", async () => {
  const text = await streamText(serializeRdf([
    quad(ex("s"), ex("p"), literal('q" b\\ n\n r\r t\t b\b f\f nul\u0000 del\u007f é 😀')),
    quad(namedNode("http://example.org/with space<>"), ex("p"), literal("x", "en-gb")),
  ], "ntriples"));
  assert.equal(
    text,
    `<http://example.org/s> <http://example.org/p> "q\\" b\\\\ n\\n r\\r t\\t b\\b f\\f nul\\u0000 del\\u007F é 😀" .\n` +
      `<http://example.org/with\\u0020space\\u003C\\u003E> <http://example.org/p> "x"@en-gb .\n`,
  );
});

Deno.test("triple formats refuse named graphs; quad formats keep them", async () => {
  const inGraph = [quad(ex("s"), ex("p"), literal("x"), ex("g"))];
  for (const format of ["ntriples", "turtle", "n3", "rdfxml", "rdfjson"] as RdfFormat[]) {
    assert.match(await streamError(serializeRdf(inGraph, format)), /holds a single graph/, format);
  }
  for (const format of ["nquads", "trig", "jsonld"] as RdfFormat[]) {
    const text = await streamText(serializeRdf(inGraph, format));
    const { quads } = await parseRdf(text, format);
    assert.equal(quads[0].graph.value, "http://example.org/g", format);
  }
});

Deno.test("Turtle uses the given prefixes; invalid prefixes throw at once", async () => {
  const text = await streamText(
    serializeRdf([quad(ex("s"), ex("p"), ex("o"))], "turtle", {
      prefixes: { ex: "http://example.org/" },
    }),
  );
  assert.match(text, /@prefix ex: <http:\/\/example.org\/>/);
  assert.match(text, /ex:s ex:p ex:o/);
  assert.throws(() => serializeRdf([], "turtle", { prefixes: { "bad prefix": "http://x/" } }));
  assert.throws(() => serializeRdf([], "n3", { prefixes: { ok: "not an iri" } }));
});

Deno.test("RDF/XML escapes markup, keeps carriage returns, declares namespaces", async () => {
  const text = await streamText(serializeRdf(
    [
      quad(ex("s"), ex("p"), literal("a\r\nb <c> & ]]>")),
      quad(ex("s"), namedNode("urn:example:q"), literal("x", "en")),
    ],
    "rdfxml",
    { prefixes: { ex: "http://example.org/" } },
  ));
  assert.ok(!text.includes("\r"), "a raw CR would become LF in any conforming XML parser");
  assert.ok(text.includes("a&#13;\nb &lt;c&gt; &amp; ]]&gt;"));
  assert.match(text, /xmlns:ex="http:\/\/example.org\/"/);
  assert.match(text, /<ex:p>/);
  assert.match(text, /xml:lang="en"/);
});

Deno.test("RDF/XML refuses predicates without an XML name and characters XML cannot hold", async () => {
  for (const predicate of ["http://example.org/p/", "http://example.org/123", "urn:x:1-2"]) {
    const message = await streamError(
      serializeRdf([quad(ex("s"), namedNode(predicate), literal("x"))], "rdfxml"),
    );
    assert.match(message, new RegExp(`<${predicate}> cannot be written as RDF/XML`));
  }
  const li = namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#li");
  assert.match(
    await streamError(serializeRdf([quad(ex("s"), li, literal("x"))], "rdfxml")),
    /reserves/,
  );
  const control = quad(ex("s"), ex("p"), literal("bell\u0007"));
  assert.match(
    await streamError(serializeRdf([control], "rdfxml")),
    /U\+0007, a character XML 1.0 cannot carry/,
  );
});

Deno.test("RDF/XML declares namespaces first met after the look-ahead on the element", async () => {
  const quads: Quad[] = [];
  for (let i = 0; i < LOOKAHEAD_QUADS + 10; i++) {
    quads.push(quad(ex(`s${i}`), ex("p"), literal(`${i}`)));
  }
  quads.push(quad(ex("late"), namedNode("http://late.example/vocab#term"), literal("late")));
  const text = await streamText(serializeRdf(quads, "rdfxml"));
  assert.match(text, /<ns:term xmlns:ns="http:\/\/late.example\/vocab#">late<\/ns:term>/);
  const reparsed = oxigraph.parse(text, { format: "application/rdf+xml" });
  assert.equal(await canonicalNQuads(reparsed), await canonicalNQuads(quads));
});

Deno.test("blank node labels are made portable, consistently within a document", async () => {
  const odd = blankNode("1 odd/label é");
  const xish = blankNode("x_20_");
  const quads = [
    quad(odd, ex("p"), xish),
    quad(xish, ex("p"), odd),
    quad(blankNode("0abc"), ex("p"), literal("digit first")),
  ];
  for (
    const [format, mediaType] of [
      ["ntriples", "application/n-triples"],
      ["turtle", "text/turtle"],
      ["rdfxml", "application/rdf+xml"],
    ] as const
  ) {
    const text = await streamText(serializeRdf(quads, format));
    const reparsed = oxigraph.parse(text, { format: mediaType });
    assert.equal(await canonicalNQuads(reparsed), await canonicalNQuads(quads), format);
  }
});

Deno.test("JSON-LD starts a new node object when a predicate comes back", async () => {
  const quads = [
    quad(ex("s"), ex("p1"), literal("a")),
    quad(ex("s"), ex("p2"), literal("b")),
    quad(ex("s"), ex("p1"), literal("c")),
    quad(ex("s"), namedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), literal("odd")),
  ];
  // A generator is not regrouped: the writer sees the order as given.
  const text = await streamText(serializeRdf(quads.values(), "jsonld"));
  const nodes = JSON.parse(text) as { "@id": string }[];
  assert.equal(nodes.length, 2);
  assert.ok(nodes.every((node) => node["@id"] === "http://example.org/s"));
  assert.equal(await canonicalNQuads(await jsonld.toRDF(nodes, {})), await canonicalNQuads(quads));
});

Deno.test("RDF/JSON: a subject that comes back fails a stream, and is merged from an array", async () => {
  const quads = [
    quad(ex("a"), ex("p"), literal("1")),
    quad(ex("b"), ex("p"), literal("2")),
    quad(ex("a"), ex("q"), literal("3")),
  ];
  async function* stream() {
    yield* quads;
  }
  assert.match(await streamError(serializeRdf(stream(), "rdfjson")), /came back/);
  const text = await streamText(serializeRdf(quads, "rdfjson"));
  const doc = JSON.parse(text) as Record<string, Record<string, unknown[]>>;
  assert.deepEqual(Object.keys(doc["http://example.org/a"]).sort(), [
    "http://example.org/p",
    "http://example.org/q",
  ]);
  assert.equal(
    await canonicalNQuads((await parseRdf(text, "rdfjson")).quads),
    await canonicalNQuads(quads),
  );
});

Deno.test("predicates of one subject may interleave in RDF/JSON and Turtle", async () => {
  const quads = [
    quad(ex("s"), ex("p"), literal("1")),
    quad(ex("s"), ex("q"), literal("2")),
    quad(ex("s"), ex("p"), literal("3")),
  ];
  for (const format of ["rdfjson", "turtle", "rdfxml"] as RdfFormat[]) {
    const text = await streamText(serializeRdf(quads.values(), format));
    const { quads: back } = await parseRdf(text, format);
    assert.equal(await canonicalNQuads(back), await canonicalNQuads(quads), format);
  }
});

Deno.test("generalised RDF (a blank node predicate) errors the stream in every format", async () => {
  const odd = quad(ex("s"), blankNode("p") as unknown as ReturnType<typeof ex>, literal("x"));
  for (const format of ALL_FORMATS) {
    assert.match(await streamError(serializeRdf([odd], format)), /predicate is not RDF/, format);
  }
});
