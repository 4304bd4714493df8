/**
 * What changed between two graphs of an item (docs/api.md, `GET /api/item/diff`): the triples
 * to remove from the first and to add to it to get the second.
 *
 * Blank nodes have no identity across versions, so triples holding one are never matched: all
 * of the first graph's blank-node triples are removed and all of the second's added. Applied
 * to the first graph, the change gives a graph isomorphic to the second (the simplest correct
 * answer; matching blank nodes by canonical labels could make smaller patches). Ground triples
 * are compared as a set.
 */
import type { Quad, Term } from "n3";
import { encodeTerm } from "../rdf/writers/ntriples.ts";

/** The change from one graph to another. */
export interface GraphChange {
  /** In the first graph, not (as such) in the second. */
  removed: Quad[];
  /** In the second graph, not (as such) in the first. */
  added: Quad[];
}

function holdsBlankNode(quad: Quad): boolean {
  return quad.subject.termType === "BlankNode" || quad.object.termType === "BlankNode";
}

/** A triple's identity (N-Triples form): equal for equal ground triples. */
function key(quad: Quad): string {
  return [quad.subject, quad.predicate, quad.object].map((term) => encodeTerm(term as Term))
    .join(" ");
}

/** The triples to remove from `from` and add to it to get (a graph isomorphic to) `to`. */
export function graphChange(from: readonly Quad[], to: readonly Quad[]): GraphChange {
  const groundFrom = new Set(from.filter((quad) => !holdsBlankNode(quad)).map(key));
  const groundTo = new Set(to.filter((quad) => !holdsBlankNode(quad)).map(key));
  return {
    removed: from.filter((quad) => holdsBlankNode(quad) || !groundTo.has(key(quad))),
    added: to.filter((quad) => holdsBlankNode(quad) || !groundFrom.has(key(quad))),
  };
}
