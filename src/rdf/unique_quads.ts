/** A graph is a set: duplicate quads in a body count once. */
import type { Quad } from "n3";
import { termToId } from "n3";

/** The quads without duplicates, first occurrence order kept. */
export function uniqueQuads(quads: Quad[]): Quad[] {
  const seen = new Set<string>();
  const result: Quad[] = [];
  for (const quad of quads) {
    const key = `${termToId(quad.subject)} ${termToId(quad.predicate)} ${termToId(quad.object)} ${
      termToId(quad.graph)
    }`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(quad);
  }
  return result;
}
