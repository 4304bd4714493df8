/**
 * What the service writes must read back the same in other libraries: the Turtle, TriG
 * and N3 (N3.js) and N-Triples, N-Quads and RDF/XML (own writers) outputs through
 * oxigraph's parsers, the JSON-LD output through `jsonld.toRDF` and oxigraph's JSON-LD
 * parser.
 */
import { strict as assert } from "node:assert";
import jsonld from "jsonld";
import oxigraph from "oxigraph";
import type { RdfFormat } from "../../src/rdf/formats.ts";
import { serializeRdf } from "../../src/rdf/serialize.ts";
import { allFixtures, canonicalNQuads, streamText } from "../support/rdf_fixtures.ts";

/** Our format → the media type oxigraph's parser reads it as. */
const OXIGRAPH_FORMATS: [RdfFormat, string][] = [
  ["turtle", "text/turtle"],
  ["n3", "text/n3"],
  ["trig", "application/trig"],
  ["ntriples", "application/n-triples"],
  ["nquads", "application/n-quads"],
  ["rdfxml", "application/rdf+xml"],
  ["jsonld", "application/ld+json"],
];

for (const fixture of allFixtures) {
  Deno.test(`cross-library: ${fixture.name} written here, read by oxigraph and jsonld`, async () => {
    const expected = await canonicalNQuads(fixture.quads);
    for (const [format, mediaType] of OXIGRAPH_FORMATS) {
      if (format === "rdfxml" && !fixture.xmlSafe) continue;
      const text = await streamText(serializeRdf(fixture.quads, format));
      const quads = oxigraph.parse(text, { format: mediaType });
      assert.equal(await canonicalNQuads(quads), expected, `${format} read by oxigraph`);
    }
    const jsonLdText = await streamText(serializeRdf(fixture.quads, "jsonld"));
    // jsonld.js rewrites string xsd:double values; see src/rdf/jsonld_parse.ts.
    if (!fixture.nonCanonicalLexicalForms) {
      const dataset = await jsonld.toRDF(JSON.parse(jsonLdText), {});
      assert.equal(await canonicalNQuads(dataset), expected, "JSON-LD read by jsonld.toRDF");
    }
  });
}

Deno.test("cross-library: jsonld.toRDF reads the JSON-LD output of typed literals", async () => {
  // The datatypes fixture minus the xsd:double values jsonld.js rewrites.
  const fixture = allFixtures.find((f) => f.nonCanonicalLexicalForms)!;
  const quads = fixture.quads.filter((q) =>
    q.object.termType !== "Literal" ||
    q.object.datatype.value !== "http://www.w3.org/2001/XMLSchema#double"
  );
  assert.ok(quads.length < fixture.quads.length && quads.length > 10);
  const text = await streamText(serializeRdf(quads, "jsonld"));
  const dataset = await jsonld.toRDF(JSON.parse(text), {});
  assert.equal(await canonicalNQuads(dataset), await canonicalNQuads(quads));
});
