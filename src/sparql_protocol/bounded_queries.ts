/**
 * SELECT and ASK queries whose whole answer is read at once, bounded in bytes, over a
 * {@link SparqlHttpClient}, each sent with the service's prologue ({@link PROLOGUE}): what the
 * SPARQL store, its index outbox and the job and catalog records look their data up with.
 * Listings page by key ({@link selectPages}, `portable_sparql.ts`).
 */
import { type SparqlHttpClient, storeProblemFromError } from "./client.ts";
import {
  malformedResults,
  type ParsedResults,
  readSmallSparqlJsonResults,
  type SparqlRow,
} from "./results_json.ts";
import { SPARQL_RESULTS_JSON } from "./results_formats.ts";
import { keyPage, PAGE_ROWS } from "./portable_sparql.ts";
import { PROLOGUE } from "./service_vocabulary.ts";

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
