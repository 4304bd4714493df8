/**
 * Root subjects of a graph: the candidates for the item a request body describes.
 *
 * docs/api.md (Items): the created item's URI is the body's single root subject, an IRI
 * subject that is no other triple's object; a blank root gets a minted URI.
 */
import type { Quad } from "n3";

/** Root subjects found in a graph, each list in order of first appearance. */
export interface RootSubjects {
  /** IRI subjects that are no other triple's object. */
  iris: string[];
  /** Labels of blank node subjects that are no other triple's object. */
  blankNodes: string[];
}

/**
 * Subjects that are the object of no triple with another subject. A triple pointing a
 * node at itself does not stop it being a root; a cycle of several nodes has no root.
 */
export function findRootSubjects(quads: Quad[]): RootSubjects {
  const referenced = new Set<string>();
  for (const { subject, object } of quads) {
    if (object.termType !== "NamedNode" && object.termType !== "BlankNode") continue;
    if (object.termType === subject.termType && object.value === subject.value) continue;
    referenced.add(`${object.termType}:${object.value}`);
  }
  const iris = new Set<string>();
  const blankNodes = new Set<string>();
  for (const { subject } of quads) {
    if (referenced.has(`${subject.termType}:${subject.value}`)) continue;
    if (subject.termType === "NamedNode") iris.add(subject.value);
    else if (subject.termType === "BlankNode") blankNodes.add(subject.value);
  }
  return { iris: [...iris], blankNodes: [...blankNodes] };
}
