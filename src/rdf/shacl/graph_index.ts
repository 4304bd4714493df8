/**
 * The first pass of profiling: dense integer ids for the graph's nodes and predicates, the
 * types of every node, and the grouping of triples by subject and predicate.
 *
 * @module
 */
import type { Quad, Term } from "n3";
import { RDF_TYPE, RDFS_SUB_CLASS_OF } from "./vocabulary.ts";

/** What the first pass learns: ids for subjects and predicates, types and subclass links. */
export interface GraphIndex {
  /** Ids of every subject, class and superclass. */
  readonly nodes: NodeIndex;
  /** Predicate IRI per predicate id. */
  readonly predicateIris: readonly string[];
  /** Per quad: the subject's node id, or -1 for a subject that is neither IRI nor blank node. */
  readonly subjectOf: Int32Array;
  /** Per quad: the predicate id, or -1 for quads that are not profiled (`rdf:type`). */
  readonly predicateOf: Int32Array;
  /** Node id → ids of its `rdf:type` classes. */
  readonly directTypes: ReadonlyMap<number, readonly number[]>;
  /** Class id → ids of its direct `rdfs:subClassOf` superclasses. */
  readonly superClasses: ReadonlyMap<number, readonly number[]>;
}

/** Dense integer ids for IRIs and blank nodes, so statistics work on numbers. */
export class NodeIndex {
  readonly #iris = new Map<string, number>();
  readonly #blankNodes = new Map<string, number>();
  /** IRI or blank-node label per id. */
  readonly labels: string[] = [];
  /** Whether each id is a blank node. */
  readonly isBlank: boolean[] = [];

  /** Number of ids given out. */
  get size(): number {
    return this.labels.length;
  }

  /** The id of an IRI or blank node, new if unseen; -1 for other terms. */
  intern(term: Term): number {
    const table = this.#tableFor(term);
    if (table === undefined) return -1;
    let id = table.get(term.value);
    if (id === undefined) {
      id = this.labels.length;
      table.set(term.value, id);
      this.labels.push(term.value);
      this.isBlank.push(term.termType === "BlankNode");
    }
    return id;
  }

  /** The id of an IRI or blank node already interned, else -1. */
  find(term: Term): number {
    return this.#tableFor(term)?.get(term.value) ?? -1;
  }

  #tableFor(term: Term): Map<string, number> | undefined {
    if (term.termType === "NamedNode") return this.#iris;
    if (term.termType === "BlankNode") return this.#blankNodes;
    return undefined;
  }
}

/** The first pass over the quads: interns subjects and predicates, records types. */
export function indexGraph(quads: readonly Quad[]): GraphIndex {
  const nodes = new NodeIndex();
  const predicateIds = new Map<string, number>();
  const predicateIris: string[] = [];
  const subjectOf = new Int32Array(quads.length);
  const predicateOf = new Int32Array(quads.length).fill(-1);
  const directTypes = new Map<number, number[]>();
  const superClasses = new Map<number, number[]>();

  for (let index = 0; index < quads.length; index++) {
    const quad = quads[index];
    const subject = nodes.intern(quad.subject);
    subjectOf[index] = subject;
    if (subject < 0) continue;
    const predicate = quad.predicate.value;
    if (predicate === RDF_TYPE) {
      const type = nodes.intern(quad.object);
      if (type >= 0) appendTo(directTypes, subject, type);
      continue;
    }
    if (predicate === RDFS_SUB_CLASS_OF) {
      const superClass = nodes.intern(quad.object);
      if (superClass >= 0) appendTo(superClasses, subject, superClass);
    }
    let predicateId = predicateIds.get(predicate);
    if (predicateId === undefined) {
      predicateId = predicateIris.length;
      predicateIds.set(predicate, predicateId);
      predicateIris.push(predicate);
    }
    predicateOf[index] = predicateId;
  }
  return { nodes, predicateIris, subjectOf, predicateOf, directTypes, superClasses };
}

function appendTo(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * Indices of the quads to profile (typed subject, predicate other than `rdf:type`),
 * ordered by subject then predicate with two stable counting sorts.
 */
export function groupBySubjectAndPredicate(
  subjectOf: Int32Array,
  predicateOf: Int32Array,
  typeSetOfNode: Int32Array,
  nodeCount: number,
  predicateCount: number,
): Int32Array {
  let selectedCount = 0;
  for (let index = 0; index < subjectOf.length; index++) {
    if (predicateOf[index] >= 0 && typeSetOfNode[subjectOf[index]] >= 0) selectedCount++;
  }
  const selected = new Int32Array(selectedCount);
  let next = 0;
  for (let index = 0; index < subjectOf.length; index++) {
    if (predicateOf[index] >= 0 && typeSetOfNode[subjectOf[index]] >= 0) {
      selected[next++] = index;
    }
  }
  const byPredicate = countingSort(selected, predicateOf, predicateCount);
  return countingSort(byPredicate, subjectOf, nodeCount);
}

function countingSort(indices: Int32Array, keyOf: Int32Array, keyCount: number): Int32Array {
  const starts = new Int32Array(keyCount + 1);
  for (let position = 0; position < indices.length; position++) {
    starts[keyOf[indices[position]] + 1]++;
  }
  for (let key = 0; key < keyCount; key++) starts[key + 1] += starts[key];
  const sorted = new Int32Array(indices.length);
  for (let position = 0; position < indices.length; position++) {
    const index = indices[position];
    sorted[starts[keyOf[index]]++] = index;
  }
  return sorted;
}
