import { strict as assert } from "node:assert";
import { DataFactory, type Quad } from "n3";
import { generateShacl } from "../../src/rdf/shacl/generate.ts";
import {
  BLANK_NODES,
  CLASHING_LOCAL_NAMES,
  IRI_VALUES_OF_ONE_CLASS,
  LANGUAGE_TAGS,
  MIXED_DATATYPES,
  MULTIPLE_CLASSES,
  OPTIONAL_AND_MANDATORY,
  parseTurtle,
  SHAPES_NAMESPACE,
  SUBCLASSES,
} from "../support/shacl_datasets.ts";

const ALL_DATASETS = [
  MIXED_DATATYPES,
  LANGUAGE_TAGS,
  OPTIONAL_AND_MANDATORY,
  IRI_VALUES_OF_ONE_CLASS,
  BLANK_NODES,
  MULTIPLE_CLASSES,
  CLASHING_LOCAL_NAMES,
  SUBCLASSES,
].join("\n");

/** A small seeded generator (mulberry32), so a failing order can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/** Gives every blank node a fresh label, the same label for the same node. */
function relabelBlankNodes(quads: readonly Quad[], random: () => number): Quad[] {
  const labels = new Map<string, string>();
  const relabel = <T extends Quad["subject"] | Quad["object"]>(term: T): T => {
    if (term.termType !== "BlankNode") return term;
    let label = labels.get(term.value);
    if (label === undefined) {
      label = `n${Math.floor(random() * 1e9)}x${labels.size}`;
      labels.set(term.value, label);
    }
    return DataFactory.blankNode(label) as T;
  };
  return quads.map((quad) =>
    DataFactory.quad(relabel(quad.subject), quad.predicate, relabel(quad.object), quad.graph)
  );
}

Deno.test("shuffled triples and relabelled blank nodes give byte-identical shapes", () => {
  const quads = parseTurtle(ALL_DATASETS);
  assert.ok(quads.some((quad) => quad.subject.termType === "BlankNode"));
  const expected = generateShacl(quads, SHAPES_NAMESPACE);
  for (const seed of [1, 2, 3, 42, 2024]) {
    const random = seededRandom(seed);
    const variant = shuffled(relabelBlankNodes(quads, random), random);
    assert.equal(generateShacl(variant, SHAPES_NAMESPACE), expected, `seed ${seed}`);
  }
});

Deno.test("repeated triples, also in a named graph, do not change the shapes", () => {
  const quads = parseTurtle(ALL_DATASETS);
  const expected = generateShacl(quads, SHAPES_NAMESPACE);
  const graph = DataFactory.namedNode("http://example.org/graph");
  const repeated = [
    ...quads,
    ...quads.map((quad) => DataFactory.quad(quad.subject, quad.predicate, quad.object, graph)),
    ...quads.slice(0, 10),
  ];
  assert.equal(generateShacl(repeated, SHAPES_NAMESPACE), expected);
});

Deno.test("the output does not depend on earlier calls", () => {
  const first = generateShacl(parseTurtle(MULTIPLE_CLASSES), SHAPES_NAMESPACE);
  generateShacl(parseTurtle(ALL_DATASETS), SHAPES_NAMESPACE);
  assert.equal(generateShacl(parseTurtle(MULTIPLE_CLASSES), SHAPES_NAMESPACE), first);
});
