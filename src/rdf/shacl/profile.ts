/**
 * Per-class statistics of an RDF graph: what SHACL generation needs to know about the
 * values of every (class, predicate) pair.
 *
 * Statistics follow SHACL's own notion of an instance (`rdf:type/rdfs:subClassOf*`), so
 * that the data always conforms to shapes built from them: a node typed `ex:Dog` where
 * `ex:Dog rdfs:subClassOf ex:Animal` is counted for both classes, as a validator would
 * target it with both shapes. Graph names are ignored (the data is read as one graph).
 *
 * @module
 */
import type { Literal, Quad, Term } from "n3";
import { compareStrings } from "./compare_strings.ts";
import {
  type GraphIndex,
  groupBySubjectAndPredicate,
  indexGraph,
  type NodeIndex,
} from "./graph_index.ts";
import { NO_TYPES, TypeSets } from "./type_sets.ts";
import { LANGUAGE_DATATYPES } from "./vocabulary.ts";

/** What the values of one predicate look like across the instances of one class. */
export interface PropertyProfile {
  /** The predicate IRI. */
  readonly predicate: string;
  /** Instances of the class with at least one value. */
  readonly subjectCount: number;
  /** Whether some instance has two or more distinct values. */
  readonly multiValued: boolean;
  /** Number of (instance, value) pairs whose value is an IRI. */
  readonly iriValues: number;
  /** Number of (instance, value) pairs whose value is a blank node. */
  readonly blankNodeValues: number;
  /** Number of (instance, value) pairs whose value is a literal. */
  readonly literalValues: number;
  /** Values that are none of the above (RDF-star quoted triples). */
  readonly otherValues: number;
  /** Datatype IRIs of the literal values, sorted. */
  readonly datatypes: readonly string[];
  /** Language tags of the literal values exactly as written, sorted. */
  readonly languages: readonly string[];
  /** Whether some instance has two values whose language tags match (ignoring case). */
  readonly repeatedLanguage: boolean;
  /**
   * IRI classes every IRI or blank-node value is an instance of, sorted, keeping only the
   * most specific ones (a superclass of another listed class is implied by it).
   */
  readonly valueClasses: readonly string[];
}

/** The statistics of one class that has instances. */
export interface ClassProfile {
  /** The class IRI. */
  readonly classIri: string;
  /** Number of distinct nodes that are SHACL instances of the class. */
  readonly instanceCount: number;
  /** One entry per predicate used by its instances (`rdf:type` excluded), by predicate IRI. */
  readonly properties: readonly PropertyProfile[];
}

/** `commonTypeSet` before the first IRI or blank-node value. */
const UNSEEN = -2;
/** Up to this many values per (subject, predicate), duplicates are found by comparison. */
const SMALL_RUN = 16;

/** Running statistics for one (class, predicate) pair. */
class PropertyAccumulator {
  subjectCount = 0;
  multiValued = false;
  repeatedLanguage = false;
  iriValues = 0;
  blankNodeValues = 0;
  literalValues = 0;
  otherValues = 0;
  readonly datatypes = new Set<string>();
  readonly languages = new Set<string>();
  /** Intersection of the values' type sets: an id into the type-set table. */
  commonTypeSet = UNSEEN;

  constructor(readonly predicate: string) {}
}

/**
 * Collects per-class statistics over `quads`.
 *
 * Runs in time linear in the number of quads: one pass records types and interns
 * subjects and predicates, two counting sorts group the remaining triples by subject and
 * predicate, and one pass over the groups accumulates the statistics.
 *
 * @returns one profile per IRI class that is the object of an `rdf:type` triple, by class IRI.
 */
export function profileClasses(quads: readonly Quad[]): ClassProfile[] {
  const graph = indexGraph(quads);
  const types = new TypeSets(graph.superClasses);
  const typeSetOfNode = new Int32Array(graph.nodes.size).fill(NO_TYPES);
  const instanceCounts = new Map<number, number>();
  for (const [node, classes] of graph.directTypes) {
    const typeSet = types.ofDirectTypes(classes);
    typeSetOfNode[node] = typeSet;
    for (const type of types.classesOf(typeSet)) {
      instanceCounts.set(type, (instanceCounts.get(type) ?? 0) + 1);
    }
  }
  const accumulators = accumulateProperties(quads, graph, types, typeSetOfNode);

  const profiles: ClassProfile[] = [];
  const typedClasses = new Set<number>();
  for (const classes of graph.directTypes.values()) {
    for (const type of classes) typedClasses.add(type);
  }
  for (const type of typedClasses) {
    if (graph.nodes.isBlank[type]) continue; // a shape needs an IRI to target
    const properties = (accumulators.get(type) ?? [])
      .map((accumulator) => toPropertyProfile(accumulator, types, graph.nodes))
      .sort((a, b) => compareStrings(a.predicate, b.predicate));
    profiles.push({
      classIri: graph.nodes.labels[type],
      instanceCount: instanceCounts.get(type) ?? 0,
      properties,
    });
  }
  return profiles.sort((a, b) => compareStrings(a.classIri, b.classIri));
}

/**
 * Walks the triples of typed subjects grouped by (subject, predicate) and folds each group
 * into the accumulators of every class of the subject.
 *
 * @returns the accumulators of each class id, in predicate-id order.
 */
function accumulateProperties(
  quads: readonly Quad[],
  graph: GraphIndex,
  types: TypeSets,
  typeSetOfNode: Int32Array,
): Map<number, PropertyAccumulator[]> {
  const { nodes, predicateIris, subjectOf, predicateOf } = graph;
  const order = groupBySubjectAndPredicate(
    subjectOf,
    predicateOf,
    typeSetOfNode,
    nodes.size,
    predicateIris.length,
  );
  const byClassAndPredicate = new Map<number, PropertyAccumulator>();
  const byClass = new Map<number, PropertyAccumulator[]>();
  const accumulatorFor = (type: number, predicate: number): PropertyAccumulator => {
    const key = type * predicateIris.length + predicate;
    let accumulator = byClassAndPredicate.get(key);
    if (accumulator === undefined) {
      accumulator = new PropertyAccumulator(predicateIris[predicate]);
      byClassAndPredicate.set(key, accumulator);
      appendAccumulator(byClass, type, accumulator);
    }
    return accumulator;
  };

  const values: Term[] = [];
  const runAccumulators: PropertyAccumulator[] = [];
  let start = 0;
  while (start < order.length) {
    const subject = subjectOf[order[start]];
    const predicate = predicateOf[order[start]];
    let end = start + 1;
    while (
      end < order.length && subjectOf[order[end]] === subject &&
      predicateOf[order[end]] === predicate
    ) end++;

    collectDistinctObjects(quads, order, start, end, values);
    const repeatedLanguage = values.length > 1 && hasRepeatedLanguage(values);
    runAccumulators.length = 0;
    for (const type of types.classesOf(typeSetOfNode[subject])) {
      const accumulator = accumulatorFor(type, predicate);
      runAccumulators.push(accumulator);
      accumulator.subjectCount++;
      if (values.length > 1) accumulator.multiValued = true;
      if (repeatedLanguage) accumulator.repeatedLanguage = true;
    }
    for (const value of values) {
      const isNode = value.termType === "NamedNode" || value.termType === "BlankNode";
      const node = isNode ? nodes.find(value) : -1;
      const valueTypeSet = node < 0 ? NO_TYPES : typeSetOfNode[node];
      for (const accumulator of runAccumulators) {
        recordValue(accumulator, value, valueTypeSet, types);
      }
    }
    start = end;
  }
  return byClass;
}

function appendAccumulator(
  map: Map<number, PropertyAccumulator[]>,
  key: number,
  accumulator: PropertyAccumulator,
): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [accumulator]);
  else list.push(accumulator);
}

/** Fills `into` with the distinct objects of `order[start..end)`; identical triples may repeat across graphs. */
function collectDistinctObjects(
  quads: readonly Quad[],
  order: Int32Array,
  start: number,
  end: number,
  into: Term[],
): void {
  into.length = 0;
  const small = end - start <= SMALL_RUN;
  const seen = small ? undefined : new Set<string>();
  for (let position = start; position < end; position++) {
    const object = quads[order[position]].object;
    // Most runs hold a handful of values: comparing them costs less than hashing keys.
    if (seen === undefined) {
      if (!into.some((value) => value.equals(object))) into.push(object);
    } else {
      const key = termKey(object);
      if (!seen.has(key)) {
        seen.add(key);
        into.push(object);
      }
    }
  }
}

/** N3.js terms expose their datatype IRI as a string; `datatype` builds a new term each call. */
function datatypeOf(literal: Literal): string {
  return (literal as Literal & { datatypeString?: string }).datatypeString ??
    literal.datatype.value;
}

function termKey(term: Term): string {
  if (term.termType === "Literal") {
    const qualifier = term.language ? `@${term.language}` : `^^${term.datatype.value}`;
    return `L${term.value}\u0000${qualifier}`;
  }
  return `${term.termType.charAt(0)}${term.value}`;
}

function hasRepeatedLanguage(values: readonly Term[]): boolean {
  const languages: string[] = [];
  for (const value of values) {
    if (value.termType === "Literal" && LANGUAGE_DATATYPES.has(datatypeOf(value))) {
      // Validators differ on case in language tags: treat "en" and "EN" as the same tag.
      languages.push(value.language.toLowerCase());
    }
  }
  if (languages.length < 2) return false;
  languages.sort();
  return languages.some((language, index) => index > 0 && language === languages[index - 1]);
}

function recordValue(
  accumulator: PropertyAccumulator,
  value: Term,
  valueTypeSet: number,
  types: TypeSets,
): void {
  switch (value.termType) {
    case "Literal": {
      accumulator.literalValues++;
      const datatype = datatypeOf(value);
      accumulator.datatypes.add(datatype);
      if (LANGUAGE_DATATYPES.has(datatype)) accumulator.languages.add(value.language);
      return;
    }
    case "NamedNode":
      accumulator.iriValues++;
      break;
    case "BlankNode":
      accumulator.blankNodeValues++;
      break;
    default:
      accumulator.otherValues++;
      return;
  }
  accumulator.commonTypeSet = accumulator.commonTypeSet === UNSEEN
    ? valueTypeSet
    : types.intersect(accumulator.commonTypeSet, valueTypeSet);
}

function toPropertyProfile(
  accumulator: PropertyAccumulator,
  types: TypeSets,
  nodes: NodeIndex,
): PropertyProfile {
  return {
    predicate: accumulator.predicate,
    subjectCount: accumulator.subjectCount,
    multiValued: accumulator.multiValued,
    iriValues: accumulator.iriValues,
    blankNodeValues: accumulator.blankNodeValues,
    literalValues: accumulator.literalValues,
    otherValues: accumulator.otherValues,
    datatypes: [...accumulator.datatypes].sort(compareStrings),
    languages: [...accumulator.languages].sort(compareStrings),
    repeatedLanguage: accumulator.repeatedLanguage,
    valueClasses: mostSpecificIriClasses(accumulator.commonTypeSet, types, nodes),
  };
}

function mostSpecificIriClasses(typeSet: number, types: TypeSets, nodes: NodeIndex): string[] {
  const iriClasses = types.classesOf(typeSet).filter((type) => !nodes.isBlank[type]);
  const implied = (type: number) =>
    iriClasses.some((other) =>
      other !== type && types.closureOf(other).includes(type) &&
      !types.closureOf(type).includes(other)
    );
  return iriClasses.filter((type) => !implied(type)).map((type) => nodes.labels[type])
    .sort(compareStrings);
}
