/**
 * An initialise rule's CONSTRUCT query, parsed once, with `?this` bound per URI.
 *
 * The binding is made in the parsed query (a `VALUES ?this { <iri> }` block added to the
 * WHERE clause as a term), never by pasting text into the query, and the IRI has already
 * been checked to hold none of the characters that could end an IRI reference. The two
 * together make `?this` injection-proof.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";
import { DataFactory } from "n3";
import { isAbsoluteIri } from "../rdf/iri.ts";
import { unindentedGenerator } from "../sparql_protocol/generator.ts";

/** A rule query that can be instantiated for one URI. */
export interface BoundableQuery {
  /** The query text with `?this` bound to `iri`. */
  bind(iri: string): string;
}

/** Parses a rule's CONSTRUCT; throws an Error naming the problem (reported at start-up). */
export function parseRuleQuery(text: string): BoundableQuery {
  const parsed = new sparqljs.Parser().parse(text);
  if (parsed.type !== "query" || parsed.queryType !== "CONSTRUCT") {
    throw new Error("an initialise rule must be a SPARQL CONSTRUCT query");
  }
  const generator = unindentedGenerator();
  return {
    bind(iri: string): string {
      if (!isAbsoluteIri(iri)) throw new Error(`not an absolute IRI: ${JSON.stringify(iri)}`);
      const values: sparqljs.ValuesPattern = {
        type: "values",
        values: [{ "?this": DataFactory.namedNode(iri) as unknown as sparqljs.IriTerm }],
      };
      const bound = { ...parsed, where: [values, ...(parsed.where ?? [])] };
      return generator.stringify(bound);
    },
  };
}
