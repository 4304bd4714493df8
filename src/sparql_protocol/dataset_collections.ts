/**
 * Collections as datasets on a remote SPARQL store (issue 43; the embedded store's own is
 * `store_embedded/collection_datasets.ts`): a query's `FROM <C>` or `FROM NAMED <C>`, or
 * the protocol's `default-graph-uri` / `named-graph-uri`, naming a collection stands for the
 * collection's item graphs. The store lists them; the dataset is then written out as FROM
 * and FROM NAMED (the remote endpoint knows no collections), so a collection's size is
 * bounded by what one query can name: {@link MAX_COLLECTION_DATASET_GRAPHS}.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DomainError } from "../errors/domain_error.ts";
import { sparqlParser } from "./parser.ts";
import { tooDeepToParse } from "./analyze_query.ts";
import type { QueryDataset } from "./query_types.ts";

/**
 * Most item graphs a query's dataset takes from collections on a remote store: each is an
 * IRI written into the query text (about 100 bytes), so 10,000 make a query of about 1 MB.
 */
export const MAX_COLLECTION_DATASET_GRAPHS = 10_000;

/**
 * The item graphs of `iri` when it names a collection that holds items; an empty list
 * otherwise (the IRI is then a graph name).
 */
export type CollectionGraphs = (iri: string) => Promise<readonly string[]>;

/**
 * The dataset `sparql` asks for (the protocol's `dataset` wins over its FROM clauses) with
 * each collection replaced by its item graphs; undefined when it names no collection.
 * Unprocessable `query-too-broad` when the collections hold more graphs than one query takes.
 */
export async function datasetWithCollections(
  sparql: string,
  dataset: QueryDataset | undefined,
  collectionGraphs: CollectionGraphs,
): Promise<QueryDataset | undefined> {
  const asked = named(dataset) ?? named(queryDataset(sparql));
  if (!asked) return undefined;
  let collections = 0;
  let graphs = 0;
  const expand = async (iris: readonly string[]) => {
    const expanded: string[] = [];
    for (const iri of new Set(iris)) {
      const items = await collectionGraphs(iri);
      if (items.length === 0) {
        expanded.push(iri);
        continue;
      }
      collections++;
      graphs += items.length;
      if (graphs > MAX_COLLECTION_DATASET_GRAPHS) throw tooManyGraphs();
      expanded.push(...items);
    }
    return expanded;
  };
  const result = {
    defaultGraphs: await expand(asked.defaultGraphs),
    namedGraphs: await expand(asked.namedGraphs),
  };
  return collections > 0 ? result : undefined;
}

/** The query's own FROM and FROM NAMED; undefined for an update or a syntax error. */
function queryDataset(sparql: string): QueryDataset | undefined {
  // Parsed only when it may name a dataset, and never too deep a text (analyze_query.ts).
  if (!/\bfrom\b/i.test(sparql) || tooDeepToParse(sparql)) return undefined;
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = sparqlParser().parse(sparql);
  } catch {
    return undefined; // refused where the query is read (analyze_query.ts)
  }
  if (parsed.type !== "query" || !parsed.from) return undefined;
  return {
    defaultGraphs: parsed.from.default.map((iri) => iri.value),
    namedGraphs: parsed.from.named.map((iri) => iri.value),
  };
}

/** `dataset` when it names any graph. */
function named(dataset: QueryDataset | undefined): QueryDataset | undefined {
  if (!dataset) return undefined;
  return dataset.defaultGraphs.length + dataset.namedGraphs.length > 0 ? dataset : undefined;
}

function tooManyGraphs(): DomainError {
  return new DomainError("query-too-broad", {
    detail: `The query's dataset names collections with more than ` +
      `${MAX_COLLECTION_DATASET_GRAPHS} items in all; on a SPARQL store each item graph is ` +
      "named in the query sent to it. Query fewer or smaller collections, or use the " +
      "union default graph (no FROM) with GRAPH patterns.",
  });
}
