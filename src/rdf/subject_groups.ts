/**
 * Puts each subject's triples next to each other: what the TripleStore contract promises of
 * item reads, and what every serialiser relies on (RDF/JSON cannot repeat a subject; the
 * grouping syntaxes write each subject once). For quads already in memory: one pass, one index.
 */
import type { Quad } from "n3";

/** The quads grouped by graph and subject, in first-seen order; the same array if one group. */
export function groupBySubject(quads: Quad[]): Quad[] {
  const groups = new Map<string, Quad[]>();
  for (const quad of quads) {
    const key = `${quad.graph.termType}\u0000${quad.graph.value}\u0000${quad.subject.termType}` +
      `\u0000${quad.subject.value}`;
    const group = groups.get(key);
    if (group) group.push(quad);
    else groups.set(key, [quad]);
  }
  return groups.size <= 1 ? quads : [...groups.values()].flat();
}
