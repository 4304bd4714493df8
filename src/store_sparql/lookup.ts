/**
 * Small SELECT queries of the SPARQL store and its companions (the index outbox, the job
 * records): the whole answer read at once, bounded, with the store's prologue.
 */
import { type SparqlHttpClient, storeProblemFromError } from "../sparql_protocol/client.ts";
import {
  malformedResults,
  type ParsedResults,
  readSmallSparqlJsonResults,
  type SparqlRow,
} from "../sparql_protocol/results_json.ts";
import { SPARQL_RESULTS_JSON } from "../sparql_protocol/results_formats.ts";
import { keyPage, PAGE_ROWS } from "./portable_sparql.ts";

/** Namespace of the service's own predicates in the store (`rcs:collection`, `rcs:hash`, …). */
export const METADATA_NAMESPACE = "urn:rdf-content-service:";

/** The prologue every query and update of the service's own data starts with. */
export const PROLOGUE = `PREFIX rcs: <${METADATA_NAMESPACE}>\n`;

/** The literal of an xsd:integer, as written into updates. */
export function integerLiteral(value: number): string {
  return `"${Math.trunc(value)}"^^<http://www.w3.org/2001/XMLSchema#integer>`;
}

/** Runs a SELECT (the prologue is added) and returns its rows; answers over `maxBytes` fail. */
export async function selectRows(
  client: SparqlHttpClient,
  query: string,
  maxBytes = 1 << 20,
): Promise<SparqlRow[]> {
  const result = await lookUp(client, query, maxBytes);
  if (result.kind !== "bindings") throw malformedResults("a SELECT answered with a boolean");
  return result.rows;
}

/**
 * Every row of a listing keyed by the IRI variable `key`, a page at a time: `build` makes
 * the query of a page from its filter (after the last key seen) and modifiers (order and
 * limit). Ends after the first page shorter than asked for.
 */
export async function* selectPages(
  client: SparqlHttpClient,
  key: string,
  build: (page: { filter: string; modifiers: string }) => string,
  maxBytes = 16 << 20,
): AsyncGenerator<SparqlRow> {
  let after: string | undefined;
  while (true) {
    const rows = await selectRows(client, build(keyPage(`?${key}`, after)), maxBytes);
    for (const row of rows) {
      const value = row.get(key)?.value;
      if (value === undefined) throw malformedResults(`a listed row has no ?${key} binding`);
      // A key twice in a row: a store reading at "read committed" (Virtuoso) can list a row
      // being rewritten in both its states. The first stands for it.
      if (value === after) continue;
      // Keys must grow: a store whose ORDER BY disagrees with its string comparison would
      // otherwise make this loop forever or skip rows.
      if (after !== undefined && !(value > after)) {
        throw malformedResults(`the endpoint's pages are not in key order at ${value}`);
      }
      after = value;
      yield row;
    }
    if (rows.length < PAGE_ROWS) return;
  }
}

/** Runs an ASK (the prologue is added). */
export async function ask(client: SparqlHttpClient, query: string): Promise<boolean> {
  const result = await lookUp(client, query, 1 << 16);
  if (result.kind !== "boolean") throw malformedResults("an ASK answered with bindings");
  return result.value;
}

/** Sends a query and reads its whole (bounded) answer; read failures become store problems. */
async function lookUp(
  client: SparqlHttpClient,
  query: string,
  maxBytes: number,
): Promise<ParsedResults> {
  const response = await client.query(`${PROLOGUE}${query}`, SPARQL_RESULTS_JSON);
  try {
    return await readSmallSparqlJsonResults(response.body!, maxBytes);
  } catch (error) {
    throw storeProblemFromError(error, client.config.queryUrl, client.config.timeoutMs);
  }
}
