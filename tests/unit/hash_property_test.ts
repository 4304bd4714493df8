/**
 * Property tests of the content hash on seeded random graphs: it must ignore what does not
 * change the graph (blank node labels, quad order, duplicates, the syntax it came in) and
 * notice what does (one literal).
 */
import { strict as assert } from "node:assert";
import { DataFactory, Parser, type Quad, type Term, Writer } from "n3";
import jsonld from "jsonld";
import { canonicalHash } from "../../src/rdf/canonical_hash.ts";

const { quad, namedNode, blankNode, literal, defaultGraph } = DataFactory;
const EX = "http://example.org/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const ITERATIONS = 300;
const SEED = 0x5eed_2024;

/** mulberry32: a tiny seeded PRNG, so a failure can be replayed from its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const intBelow = (random: Random, n: number) => Math.floor(random() * n);
const pick = <T>(random: Random, items: readonly T[]): T => items[intBelow(random, items.length)];

function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = intBelow(random, i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** A random dataset: a few IRIs and blank nodes, mixed literals, some named graphs. */
function randomGraph(random: Random): Quad[] {
  const blanks = Array.from({ length: 1 + intBelow(random, 6) }, (_, i) => blankNode(`n${i}`));
  const iris = Array.from({ length: 2 + intBelow(random, 4) }, (_, i) => namedNode(`${EX}r${i}`));
  const predicates = [`${EX}name`, `${EX}knows`, `${EX}part`, RDF_TYPE].map((p) => namedNode(p));
  const graphs = [namedNode(`${EX}g1`), namedNode(`${EX}g2`)];
  const randomLiteral = () => {
    const value = `v${intBelow(random, 8)}`;
    switch (intBelow(random, 4)) {
      case 0:
        return literal(value, pick(random, ["en", "de", "en-gb"]));
      case 1:
        return literal(String(intBelow(random, 100)), namedNode(`${XSD}integer`));
      case 2:
        return literal(`${value} "quoted"\n é 🎉`);
      default:
        return literal(value);
    }
  };
  const quads: Quad[] = [];
  const count = 3 + intBelow(random, 18);
  for (let i = 0; i < count; i++) {
    const subject = random() < 0.6 ? pick(random, blanks) : pick(random, iris);
    const predicate = pick(random, predicates);
    const roll = random();
    const object = predicate.value === RDF_TYPE || roll < 0.2
      ? pick(random, iris)
      : roll < 0.5
      ? pick(random, blanks)
      : randomLiteral();
    const graph = random() < 0.8 ? defaultGraph() : pick(random, graphs);
    quads.push(quad(subject, predicate, object, graph));
  }
  return quads;
}

/** The same graph with every blank node renamed, quads shuffled and some repeated. */
function relabelledShuffledDuplicated(random: Random, quads: readonly Quad[]): Quad[] {
  // Label styles include ones rdf-canonize could mistake for its own output.
  const style = pick(random, [
    (i: number) => `x${i}`,
    (i: number) => `c14n${i}`,
    (i: number) => `b${i}_`,
  ]);
  const offset = intBelow(random, 8);
  const oldLabels = [
    ...new Set(
      quads.flatMap((q) => [q.subject, q.object, q.graph])
        .filter((term) => term.termType === "BlankNode").map((term) => term.value),
    ),
  ];
  const renamed = new Map(
    shuffled(random, oldLabels).map((label, i) => [label, blankNode(style(offset + i))]),
  );
  const relabel = <T extends Term>(term: T): T =>
    term.termType === "BlankNode" ? renamed.get(term.value) as unknown as T : term;
  const relabelled = quads.map((q) =>
    quad(relabel(q.subject), q.predicate, relabel(q.object), relabel(q.graph))
  );
  const repeats = Array.from({ length: intBelow(random, 4) }, () => {
    const q = pick(random, relabelled);
    return quad(q.subject, q.predicate, q.object, q.graph);
  });
  return shuffled(random, [...relabelled, ...repeats]);
}

/** The plain terms `jsonld.toRDF` returns, as n3 terms. */
interface PlainTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

interface PlainQuad {
  subject: PlainTerm;
  predicate: PlainTerm;
  object: PlainTerm;
  graph: PlainTerm;
}

function toN3Term(term: PlainTerm): Term {
  switch (term.termType) {
    case "NamedNode":
      return namedNode(term.value);
    case "BlankNode":
      return blankNode(term.value);
    case "DefaultGraph":
      return defaultGraph();
    case "Literal":
      return literal(term.value, term.language || namedNode(term.datatype!.value));
    default:
      throw new Error(`unexpected term type ${term.termType}`);
  }
}

/** The graph through JSON-LD and back: `jsonld.fromRDF`, then `jsonld.toRDF`. */
async function viaJsonLd(quads: readonly Quad[]): Promise<Quad[]> {
  const document = await jsonld.fromRDF([...quads]);
  const back = await jsonld.toRDF(document) as unknown as PlainQuad[];
  return back.map((q) =>
    quad(
      toN3Term(q.subject) as Quad["subject"],
      toN3Term(q.predicate) as Quad["predicate"],
      toN3Term(q.object) as Quad["object"],
      toN3Term(q.graph) as Quad["graph"],
    )
  );
}

/** The graph through N-Quads text and back, as n3 writes and parses it. */
function viaNQuads(quads: readonly Quad[]): Quad[] {
  const text = new Writer({ format: "N-Quads" }).quadsToString([...quads]);
  return new Parser({ format: "N-Quads" }).parse(text);
}

/** The graph with one literal made unlike any other value in it. */
function withOneLiteralChanged(random: Random, quads: readonly Quad[], mark: number) {
  const literalAt = quads.flatMap((q, i) => q.object.termType === "Literal" ? [i] : []);
  if (literalAt.length === 0) return undefined;
  const at = pick(random, literalAt);
  const old = quads[at].object as ReturnType<typeof literal>;
  const changed = literal(
    `${old.value}\u2603${mark}`,
    old.language || old.datatype,
  );
  return quads.map((q, i) => i === at ? quad(q.subject, q.predicate, changed, q.graph) : q);
}

Deno.test("the hash depends on the graph only, on seeded random graphs", async () => {
  const random = prng(SEED);
  let literalChanges = 0;
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const graph = randomGraph(random);
    const context = `iteration ${iteration} (seed ${SEED})`;
    const original = await canonicalHash(graph);

    const variant = await canonicalHash(relabelledShuffledDuplicated(random, graph));
    assert.deepEqual(variant, original, `relabelled/shuffled/duplicated, ${context}`);

    const jsonLd = await canonicalHash(await viaJsonLd(graph));
    assert.deepEqual(jsonLd, original, `through JSON-LD, ${context}`);

    const nQuads = await canonicalHash(viaNQuads(graph));
    assert.deepEqual(nQuads, original, `through N-Quads, ${context}`);

    const changed = withOneLiteralChanged(random, graph, iteration);
    if (changed) {
      literalChanges++;
      const other = await canonicalHash(changed);
      assert.notEqual(other.hash, original.hash, `one literal changed, ${context}`);
    }
  }
  // The generator must actually exercise the literal property, not skip it.
  assert.ok(literalChanges > ITERATIONS / 2, `only ${literalChanges} literal changes`);
});
