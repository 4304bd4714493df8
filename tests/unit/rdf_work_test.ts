/**
 * The RDF work of writes (src/items/rdf_work.ts) gives the same quads, hashes and errors on
 * worker threads as on the calling thread.
 */
import { strict as assert } from "node:assert";
import type { Quad } from "n3";
import { RdfWork } from "../../src/items/rdf_work.ts";
import { parseRdf } from "../../src/rdf/parse.ts";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";
import { quadKey } from "../../src/rdf/dedupe.ts";
import { fromWire, toWire } from "../../src/rdf/quad_wire.ts";
import { DomainError } from "../../src/errors/domain_error.ts";
import type { GraphBlock } from "../../src/rdf/graph_blocks.ts";

const TURTLE = `@prefix ex: <https://ex.example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:item ex:title "a \\"quoted\\" title\\nover two lines"@en-GB ;
  ex:count "42"^^xsd:integer ;
  ex:plain "x\\"" ;
  ex:xml "<b xmlns=\\"urn:x\\">bold</b>"^^rdf:XMLLiteral ;
  ex:creator [ ex:name "Ada" ; ex:knows [ ex:name "Bob" ] ] ;
  ex:other _:c14n0 .
_:c14n0 ex:name "looks canonical" .
`;

const keys = (quads: Quad[]) => quads.map(quadKey);

/**
 * The quads' keys with blank node labels left out: each parser (each worker's too) labels
 * blank nodes from its own counter, and the canonical hash covers their structure.
 */
const groundKeys = (quads: Quad[]) =>
  quads.map((quad) =>
    [quad.subject, quad.predicate, quad.object].map((term) =>
      term.termType === "BlankNode" ? "_" : `${term.termType}:${term.id}`
    ).join(" ")
  );

function works(): RdfWork[] {
  return [0, 2].map((workers) => new RdfWork({ workers, maxQueue: 16, contexts: {} }));
}

Deno.test("quads cross a thread boundary term for term", async () => {
  const { quads } = await parseRdf(TURTLE, "turtle");
  const back = fromWire(structuredClone(toWire(quads)));
  assert.deepEqual(keys(back), keys(quads));
  back.forEach((quad, i) => assert.ok(quad.equals(quads[i])));
});

Deno.test("a body parses to the same quads and hash on workers as on this thread", async () => {
  const { quads } = await parseRdf(TURTLE, "turtle");
  const expected = (await canonicalHash(quads)).hash;
  for (const work of works()) {
    try {
      // Concurrent writes, so that the pool is used and not bypassed.
      const results = await Promise.all(
        Array.from(
          { length: 6 },
          () => work.writing(() => work.parse(TURTLE, "turtle", { item: true })),
        ),
      );
      for (const result of results) {
        assert.equal(result.format, "turtle");
        assert.deepEqual(groundKeys(result.quads), groundKeys(quads));
        assert.equal(await work.hash(result.quads), expected);
      }
      // A graph that was not parsed here is hashed all the same.
      assert.equal(await work.hash([...quads].reverse()), expected);
      if (work.workers > 0) assert.ok(work.stats().done >= 6, JSON.stringify(work.stats()));
    } finally {
      work.close();
    }
  }
});

Deno.test("a syntax error keeps its kind, slug and line from a worker", async () => {
  const bad = "@prefix ex: <https://ex.example.org/> .\nex:a ex:b ex:c .\nex:a ex:b .\n";
  const expected = await parseRdf(bad, "turtle").catch((error) => error as DomainError);
  assert.ok(expected instanceof DomainError);
  for (const work of works()) {
    try {
      const failures = await Promise.all(
        Array.from(
          { length: 3 },
          () => work.writing(() => work.parse(bad, "turtle")).catch((error) => error),
        ),
      );
      for (const error of failures) {
        assert.ok(error instanceof DomainError);
        assert.equal(error.kind, expected.kind);
        assert.equal(error.slug, "rdf-syntax");
        assert.equal(error.message, expected.message);
        assert.deepEqual(error.errors, expected.errors);
      }
    } finally {
      work.close();
    }
  }
});

Deno.test("a graph too complex to hash is refused with 422 canonicalization-limit", async () => {
  // Ten blank nodes all linked to each other: more work than the factor 0 allows.
  const lines: string[] = [];
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) if (a !== b) lines.push(`_:n${a} <urn:p> _:n${b} .`);
  }
  const text = lines.join("\n");
  for (const workers of [0, 2]) {
    const work = new RdfWork({ workers, maxQueue: 16, contexts: {}, maxWorkFactor: 0 });
    try {
      const parsed = await Promise.all(
        [1, 2].map(() => work.writing(() => work.parse(text, "ntriples", { item: true }))),
      );
      await assert.rejects(work.hash(parsed[0].quads), (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.slug, "canonicalization-limit");
        assert.equal(error.kind, "unprocessable");
        return true;
      });
    } finally {
      work.close();
    }
  }
});

Deno.test("an import block becomes the same item on a worker, hashed ahead", async () => {
  const block: GraphBlock = {
    text: '\n<https://ex.example.org/a> <urn:p> "x" <https://ex.example.org/a> .\n' +
      "<https://ex.example.org/a> <urn:q> _:b <https://ex.example.org/a> .\n",
    line: 10,
    textLine: 10,
  };
  const broken: GraphBlock = {
    text: '\n<https://ex.example.org/a> <urn:p> "x <https://ex.example.org/a> .\n',
    line: 12,
    textLine: 12,
  };
  const results: { uri: string; hash: string; quads: string[] }[] = [];
  const errors: unknown[] = [];
  for (const work of works()) {
    try {
      const item = await work.blockItem(block, "nquads", undefined);
      const hash = await work.hash(item.quads);
      results.push({ uri: item.uri, hash, quads: groundKeys(item.quads) });
      errors.push(await work.blockItem(broken, "nquads", undefined).catch((error) => error));
    } finally {
      work.close();
    }
  }
  assert.equal(results[0].uri, "https://ex.example.org/a");
  assert.deepEqual(results[1], results[0]);
  assert.equal(results[0].quads.length, 2);
  for (const error of errors) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.slug, "rdf-syntax");
    assert.deepEqual(error.errors?.[0].path.split(":")[0], "12");
  }
  assert.deepEqual((errors[1] as DomainError).errors, (errors[0] as DomainError).errors);
});

Deno.test("the hash operation's answer is the same on workers as on this thread", async () => {
  const { quads } = await parseRdf(TURTLE, "turtle");
  const expected = await canonicalHash(quads);
  for (const work of works()) {
    try {
      assert.deepEqual(await work.hashBody(TURTLE, "turtle", undefined), expected);
      await assert.rejects(work.hashBody("<a> <b> <c> .", "turtle", undefined), (error) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.slug, "relative-iri");
        return true;
      });
      const based = await work.hashBody("<a> <b> <c> .", "turtle", "https://ex.example.org/");
      assert.equal(based.quads, 1);
    } finally {
      work.close();
    }
  }
});
