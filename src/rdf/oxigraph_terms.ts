/**
 * Crossing between oxigraph's terms (WASM objects) and n3's RDF/JS terms; both libraries
 * implement the RDF/JS factory's `fromQuad`, so the crossing is a copy, not a re-parse.
 */
import oxigraph from "oxigraph";
import { DataFactory } from "n3";
import type { Quad } from "n3";

// n3 implements the RDF/JS factory's optional `fromQuad`; its typings leave it out.
const copyQuad = (DataFactory as unknown as { fromQuad(quad: unknown): Quad }).fromQuad;

/** An oxigraph (or any RDF/JS) quad as an n3 quad. */
export function fromOxigraphQuad(quad: unknown): Quad {
  return copyQuad(quad);
}

/** An n3 quad as an oxigraph quad. */
export function toOxigraphQuad(quad: Quad): ReturnType<typeof oxigraph.quad> {
  return oxigraph.fromQuad(quad);
}
