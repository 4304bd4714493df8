/** The format table, media types, file extensions, Accept negotiation and the IRI check. */
import { strict as assert } from "node:assert";
import {
  formatFromFileName,
  formatFromMediaType,
  negotiateFormat,
  RDF_FORMATS,
  type RdfFormat,
} from "../../src/rdf/formats.ts";
import { isAbsoluteIri } from "../../src/rdf/iri.ts";
import { DataFactory } from "n3";
import {
  FORMAT_NAMES,
  formatsWhere,
  GENERIC_JSON_FORMAT,
  importFormats,
  isStreamedImport,
  QUAD_FORMATS,
} from "../../src/rdf/format_table.ts";
import { serializeRdf } from "../../src/rdf/serialize.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import {
  DOWNLOAD_FORMATS,
  GRAPH_DEFAULT,
  GRAPH_FORMATS,
  ITEM_READ_DEFAULT,
  ITEM_READ_FORMATS,
} from "../../src/routes/media_types.ts";
import { bodyMediaTypes, JSON_BODY_FORMATS } from "../../src/http/rdf_body.ts";
import { BULK_MEDIA_TYPES } from "../../src/routes/contracts/bulk.ts";

Deno.test("formatFromMediaType ignores parameters and case, and knows generic JSON", () => {
  assert.equal(formatFromMediaType("text/turtle"), "turtle");
  assert.equal(formatFromMediaType("Text/Turtle; charset=UTF-8"), "turtle");
  assert.equal(formatFromMediaType("application/ld+json;profile=expanded"), "jsonld");
  assert.equal(formatFromMediaType("application/rdf+json"), "rdfjson");
  assert.equal(formatFromMediaType("application/json; charset=utf-8"), "json");
  assert.equal(formatFromMediaType("application/n-triples"), "ntriples");
  assert.equal(formatFromMediaType("application/n-quads"), "nquads");
  assert.equal(formatFromMediaType("application/rdf+xml"), "rdfxml");
  assert.equal(formatFromMediaType("application/xml"), "rdfxml");
  assert.equal(formatFromMediaType("text/n3"), "n3");
  assert.equal(formatFromMediaType("application/trig"), "trig");
  assert.equal(formatFromMediaType("application/x-turtle"), "turtle");
  assert.equal(formatFromMediaType("text/plain"), undefined);
  assert.equal(formatFromMediaType("text/html"), undefined);
  assert.equal(formatFromMediaType(""), undefined);
});

Deno.test("formatFromFileName maps every documented extension", () => {
  const expected: Record<string, RdfFormat | "json"> = {
    "data.ttl": "turtle",
    "data.nt": "ntriples",
    "data.nq": "nquads",
    "data.trig": "trig",
    "data.rdf": "rdfxml",
    "ontology.OWL": "rdfxml",
    "data.xml": "rdfxml",
    "data.n3": "n3",
    "data.jsonld": "jsonld",
    "data.json": "json",
    "archive.tar.ttl": "turtle",
  };
  for (const [name, format] of Object.entries(expected)) {
    assert.equal(formatFromFileName(name), format, name);
  }
  assert.equal(formatFromFileName("notes.txt"), undefined);
  assert.equal(formatFromFileName("README"), undefined);
});

Deno.test("download content types carry charset=utf-8 where docs/api.md says so", () => {
  assert.equal(RDF_FORMATS.turtle.contentType, "text/turtle; charset=utf-8");
  assert.equal(RDF_FORMATS.rdfxml.contentType, "application/rdf+xml; charset=utf-8");
  assert.equal(RDF_FORMATS.ntriples.contentType, "application/n-triples; charset=utf-8");
  assert.equal(RDF_FORMATS.n3.contentType, "text/n3; charset=utf-8");
  assert.equal(RDF_FORMATS.jsonld.contentType, "application/ld+json");
});

const READABLE: RdfFormat[] = ["jsonld", "rdfjson", "turtle", "ntriples", "rdfxml", "n3"];

Deno.test("negotiateFormat: no or empty Accept, */* and application/* give the fallback", () => {
  assert.equal(negotiateFormat(undefined, READABLE, "jsonld"), "jsonld");
  assert.equal(negotiateFormat("", READABLE, "jsonld"), "jsonld");
  assert.equal(negotiateFormat("*/*", READABLE, "jsonld"), "jsonld");
  assert.equal(negotiateFormat("application/*", READABLE, "jsonld"), "jsonld");
  // Not the fallback's type: the first allowed format of that type, in `allowed` order.
  assert.equal(negotiateFormat("application/*", READABLE, "turtle"), "jsonld");
  assert.equal(
    negotiateFormat("application/*", ["turtle", "rdfxml", "jsonld"], "turtle"),
    "rdfxml",
  );
  assert.equal(negotiateFormat("text/*", READABLE, "jsonld"), "turtle");
  assert.equal(negotiateFormat("garbage", READABLE, "jsonld"), "jsonld");
});

Deno.test("negotiateFormat: exact types, q-values, specificity, client order", () => {
  assert.equal(negotiateFormat("text/turtle", READABLE, "jsonld"), "turtle");
  assert.equal(negotiateFormat("TEXT/TURTLE;charset=utf-8", READABLE, "jsonld"), "turtle");
  assert.equal(negotiateFormat("application/json", READABLE, "turtle"), "jsonld");
  assert.equal(
    negotiateFormat("text/turtle;q=0.5, application/rdf+xml;q=0.9", READABLE, "jsonld"),
    "rdfxml",
  );
  assert.equal(
    negotiateFormat("application/n-triples, text/turtle", READABLE, "jsonld"),
    "ntriples",
  );
  // A named type beats a wildcard of the same weight.
  assert.equal(negotiateFormat("*/*, text/n3", READABLE, "jsonld"), "n3");
  // The most specific range decides a type's weight: turtle is excluded here.
  assert.equal(negotiateFormat("text/*, text/turtle;q=0", READABLE, "jsonld"), "n3");
  // A browser's Accept gets the default, not RDF/XML for application/xml.
  assert.equal(
    negotiateFormat(
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      READABLE,
      "jsonld",
    ),
    "jsonld",
  );
});

Deno.test("negotiateFormat: undefined when nothing allowed is acceptable (406)", () => {
  assert.equal(negotiateFormat("text/html", READABLE, "jsonld"), undefined);
  assert.equal(negotiateFormat("text/turtle;q=0", ["turtle"], "turtle"), undefined);
  assert.equal(negotiateFormat("*/*;q=0", READABLE, "jsonld"), undefined);
  assert.equal(negotiateFormat("application/trig", READABLE, "jsonld"), undefined);
});

Deno.test("isAbsoluteIri follows docs/api.md", () => {
  for (
    const iri of [
      "http://example.org/a",
      "https://data.example.org/id/document/1?x=1#frag",
      "urn:isbn:0451450523",
      "mailto:someone@example.org",
      "tag:example.org,2024:a,b",
      "http://example.org/ünïcödé/😀",
      "x-custom+scheme.v1:thing",
    ]
  ) assert.ok(isAbsoluteIri(iri), iri);
  for (
    const value of [
      "",
      "relative/path",
      "/absolute/path",
      "1http://example.org/",
      "http://example.org/a b",
      "http://example.org/a\tb",
      "http://example.org/\u0000",
      "http://example.org/<a>",
      'http://example.org/"',
      "http://example.org/{a}",
      "http://example.org/a|b",
      "http://example.org/a\\b",
      "http://example.org/a^b",
      "http://example.org/a`b",
      "http://example.org/\ud800",
      ":no-scheme",
    ]
  ) assert.ok(!isAbsoluteIri(value), JSON.stringify(value));
});

// The format table (src/rdf/format_table.ts): one row per format, which everything reads.

Deno.test("each media type, alias and extension of the table names one format", () => {
  const owners = new Map<string, string[]>();
  for (const [format, info] of Object.entries(RDF_FORMATS)) {
    for (
      const name of [info.mediaType, ...info.aliases, ...info.bodyOnlyAliases, ...info.extensions]
    ) {
      owners.set(name, [...owners.get(name) ?? [], format]);
    }
  }
  const shared = [...owners].filter(([, formats]) => formats.length > 1);
  assert.deepEqual(shared, [], "names that would make negotiation or uploads guess");
  for (const format of FORMAT_NAMES) {
    const info = RDF_FORMATS[format];
    assert.equal(formatFromMediaType(info.contentType), format, info.contentType);
    for (const extension of info.extensions) {
      assert.equal(formatFromFileName(`data${extension}`), format, extension);
    }
  }
});

Deno.test("every format of the table is written and read back", async () => {
  const quad = DataFactory.quad(
    DataFactory.namedNode("https://example.org/a"),
    DataFactory.namedNode("https://example.org/p"),
    DataFactory.literal("x"),
  );
  for (const format of FORMAT_NAMES) {
    const text = await new Response(serializeRdf([quad], format)).text();
    const { quads } = await parseRdf(text, format);
    assert.equal(quads.length, 1, `${format}: ${text}`);
    assert.ok(quads[0].equals(quad), `${format}: ${text}`);
  }
});

Deno.test("the routes' lists come from the table, each default first", () => {
  assert.deepEqual(ITEM_READ_FORMATS, ["jsonld", "turtle", "ntriples", "rdfxml", "n3", "rdfjson"]);
  assert.equal(ITEM_READ_DEFAULT, "jsonld");
  assert.deepEqual(GRAPH_FORMATS, ["turtle", "ntriples", "rdfxml", "jsonld"]);
  assert.equal(GRAPH_DEFAULT, "turtle");
  assert.deepEqual(DOWNLOAD_FORMATS, {
    ttl: "turtle",
    nt: "ntriples",
    rdf: "rdfxml",
    n3: "n3",
    jsonld: "jsonld",
  });
  assert.deepEqual(JSON_BODY_FORMATS, formatsWhere((info) => info.body === "json"));
  assert.deepEqual(bodyMediaTypes("any"), [
    "application/ld+json",
    "application/rdf+json",
    "application/json",
    "text/turtle",
    "application/n-triples",
    "application/rdf+xml",
    "text/n3",
  ]);
  // Where Accept leaves a tie, the table's order decides: N-Triples is the first
  // application/* type a CONSTRUCT answers in, JSON is JSON-LD.
  assert.equal(negotiateFormat("application/*", GRAPH_FORMATS, GRAPH_DEFAULT), "ntriples");
  assert.equal(negotiateFormat("application/json", GRAPH_FORMATS, GRAPH_DEFAULT), "jsonld");
  assert.equal(negotiateFormat("text/*", ITEM_READ_FORMATS, ITEM_READ_DEFAULT), "turtle");
});

Deno.test("the bulk import's lists come from the table, the quad formats first", () => {
  assert.deepEqual(QUAD_FORMATS, ["nquads", "trig"]);
  assert.deepEqual(importFormats("graph"), QUAD_FORMATS);
  assert.deepEqual(importFormats("subject"), [
    "nquads",
    "trig",
    "turtle",
    "ntriples",
    "rdfxml",
    "jsonld",
  ]);
  assert.deepEqual(
    FORMAT_NAMES.filter(isStreamedImport),
    ["turtle", "ntriples", "nquads", "trig"],
  );
  assert.equal(GENERIC_JSON_FORMAT, "jsonld");
  assert.deepEqual(BULK_MEDIA_TYPES, ["application/n-quads", "application/trig"]);
});
