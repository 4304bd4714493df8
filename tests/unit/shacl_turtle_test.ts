import { strict as assert } from "node:assert";
import { Parser, type Quad } from "n3";
import { declarePrefixes, namespaceOf } from "../../src/rdf/shacl/prefixes.ts";
import { createIriFormatter, escapeLocalName, writeTurtle } from "../../src/rdf/shacl/turtle.ts";

const EX = "http://example.org/";

Deno.test("escapeLocalName escapes what Turtle allows and refuses what it cannot write", () => {
  assert.equal(escapeLocalName("Person/name"), "Person\\/name");
  assert.equal(escapeLocalName("-x."), "\\-x\\.");
  assert.equal(escapeLocalName("a.b"), "a.b");
  assert.equal(escapeLocalName("caf%C3%A9"), "caf%C3%A9");
  assert.equal(escapeLocalName("100%"), "100\\%");
  assert.equal(escapeLocalName("a b"), undefined);
  assert.equal(escapeLocalName("a<b"), undefined);
});

Deno.test("written IRIs parse back to the same IRIs", () => {
  const iris = [
    `${EX}Person/name`,
    `${EX}Person/name/string`,
    `${EX}-odd.`,
    `${EX}q?a=b&c=d`,
    `${EX}caf%C3%A9`,
    `${EX}café`,
    `http://other.example/thing`,
  ];
  const turtle = writeTurtle({
    header: ["round trip"],
    prefixes: [{ prefix: "ex", namespace: EX }],
    blocks: iris.map((iri) => ({
      subject: iri,
      statements: [{ predicate: `${EX}p`, objects: [{ kind: "string", value: 'say "hi"\n\\' }] }],
    })),
  });
  const quads: Quad[] = new Parser().parse(turtle);
  assert.deepEqual(quads.map((quad) => quad.subject.value), iris);
  assert.ok(quads.every((quad) => quad.object.value === 'say "hi"\n\\'));
});

Deno.test("the formatter picks the longest namespace that can shorten an IRI", () => {
  const format = createIriFormatter([
    { prefix: "ex", namespace: EX },
    { prefix: "shape", namespace: `${EX}shapes/` },
  ]);
  assert.equal(format(`${EX}shapes/Person/name`), "shape:Person\\/name");
  assert.equal(format(`${EX}Thing`), "ex:Thing");
  assert.equal(format("http://else.example/x y"), "<http://else.example/x\\u0020y>");
});

Deno.test("lists, booleans, integers and long object lists are laid out readably", () => {
  const turtle = writeTurtle({
    header: [],
    prefixes: [{ prefix: "ex", namespace: EX }],
    blocks: [{
      comment: ["about ", { iri: `${EX}s` }],
      subject: `${EX}s`,
      statements: [
        {
          predicate: "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
          objects: [{ kind: "iri", iri: `${EX}T` }],
        },
        {
          predicate: `${EX}list`,
          objects: [{ kind: "list", items: [{ kind: "string", value: "en" }] }],
        },
        { predicate: `${EX}count`, objects: [{ kind: "integer", value: 1 }] },
        { predicate: `${EX}flag`, objects: [{ kind: "boolean", value: true }] },
        {
          predicate: `${EX}many`,
          objects: Array.from(
            { length: 8 },
            (_, index) => ({ kind: "iri" as const, iri: `${EX}object${index}/long` }),
          ),
        },
      ],
    }],
  });
  const lines = turtle.split("\n");
  assert.ok(lines.includes("# about ex:s"));
  assert.ok(lines.includes("    a ex:T ;"));
  assert.ok(lines.includes('    ex:list ( "en" ) ;'));
  assert.ok(lines.includes("    ex:count 1 ;"));
  assert.ok(lines.includes("    ex:flag true ;"));
  assert.ok(lines.includes("    ex:many"));
  assert.ok(lines.every((line) => line.length <= 100));
  // The one-item list is three triples: the link, rdf:first and rdf:rest.
  assert.equal(new Parser().parse(turtle).length, 14);
});

Deno.test("namespaceOf splits after the last # or /, never leaving only a scheme", () => {
  assert.equal(namespaceOf("http://schema.org/Person"), "http://schema.org/");
  assert.equal(
    namespaceOf("http://www.w3.org/2001/XMLSchema#int"),
    "http://www.w3.org/2001/XMLSchema#",
  );
  assert.equal(namespaceOf("urn:isbn:123"), "urn:isbn:");
  assert.equal(namespaceOf("http://example.org/"), undefined);
  assert.equal(namespaceOf("http://example.org"), undefined);
  assert.equal(namespaceOf("urn:x"), undefined);
});

Deno.test("declarePrefixes uses known prefixes, derives the others and resolves clashes", () => {
  const declarations = declarePrefixes(
    [
      "http://xmlns.com/foaf/0.1/",
      "https://schema.org/",
      "http://schema.org/",
      "http://example.org/vocab/v2/",
      "http://example.org/other/vocab/",
      "http://data.example.com/",
      "http://example.org/shapes/",
      "urn:isbn:",
      "http://example.org/a/",
    ],
    [{ prefix: "shape", namespace: "http://example.org/shapes/" }],
  );
  assert.deepEqual(
    declarations.map(({ prefix, namespace }) => `${prefix} ${namespace}`),
    [
      "data http://data.example.com/",
      "example http://example.org/a/",
      "foaf http://xmlns.com/foaf/0.1/",
      "isbn urn:isbn:",
      "schema http://schema.org/",
      "schema2 https://schema.org/",
      "shape http://example.org/shapes/",
      "vocab http://example.org/other/vocab/",
      "vocab2 http://example.org/vocab/v2/",
    ],
  );
});
