/**
 * Writing a parsed SPARQL query back as text without changing what it means.
 */
// @ts-types="@types/sparqljs"
import sparqljs from "sparqljs";

/**
 * A sparqljs generator that does not indent. sparqljs indents with `replace(/^/gm, …)`,
 * and a JavaScript `^` also matches after U+2028 and U+2029, which are legal in IRIs and
 * literals: indenting would write spaces into them and change the query (or break it).
 */
export function unindentedGenerator(): sparqljs.SparqlGenerator {
  return new sparqljs.Generator({ indent: "" });
}
