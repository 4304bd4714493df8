/**
 * Quads across a thread boundary. N3.js terms are class instances, which `postMessage`
 * would strip to plain objects; their term ids are strings that clone cheaply and that
 * N3.js turns back into the same terms lazily (a literal is parsed from its id only when
 * its value, language or datatype is read).
 */
// @ts-types="@types/n3"
import { DataFactory, type Quad, termToId } from "n3";
import { termFromId } from "./language_tags.ts";

/** Quads as four term ids each: subject, predicate, object, graph (`""`: the default graph). */
export type WireQuads = string[];

/** The quads as term ids, ready for `postMessage`. */
export function toWire(quads: readonly Quad[]): WireQuads {
  const ids: string[] = new Array(quads.length * 4);
  let i = 0;
  for (const quad of quads) {
    ids[i++] = termToId(quad.subject);
    ids[i++] = termToId(quad.predicate);
    ids[i++] = termToId(quad.object);
    ids[i++] = termToId(quad.graph);
  }
  return ids;
}

/** The quads of {@link toWire}'s ids, equal term by term to the ones sent. */
export function fromWire(ids: WireQuads): Quad[] {
  const quads: Quad[] = new Array(ids.length / 4);
  for (let i = 0, q = 0; i < ids.length; i += 4, q++) {
    quads[q] = DataFactory.quad(
      termFromId(ids[i]) as Quad["subject"],
      termFromId(ids[i + 1]) as Quad["predicate"],
      termFromId(ids[i + 2]) as Quad["object"],
      termFromId(ids[i + 3]) as Quad["graph"],
    );
  }
  return quads;
}
