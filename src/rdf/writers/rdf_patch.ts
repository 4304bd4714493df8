/**
 * RDF Patch (Jena's change format, `application/rdf-patch`): a change as `D` (delete) and `A`
 * (add) rows of N-Triples terms in one transaction (`TX .` … `TC .`), deletes first so that
 * blank node labels the additions reuse name the added nodes only.
 */
import type { Quad } from "n3";
import { encodeTerm } from "./ntriples.ts";

/** The patch's media type. */
export const RDF_PATCH = "application/rdf-patch";

function row(operation: "A" | "D", quad: Quad): string {
  return `${operation} ${encodeTerm(quad.subject)} ${encodeTerm(quad.predicate)} ${
    encodeTerm(quad.object)
  } .\n`;
}

/** The patch that removes `removed` and adds `added`. */
export function rdfPatchText(change: { removed: readonly Quad[]; added: readonly Quad[] }): string {
  let text = "TX .\n";
  for (const quad of change.removed) text += row("D", quad);
  for (const quad of change.added) text += row("A", quad);
  return text + "TC .\n";
}
