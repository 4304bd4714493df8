/**
 * The user's SPARQL queries on the SPARQL store (`TripleStore.query`).
 *
 * A query runs with a row limit written in (`analyzeQuery`), otherwise as written: the
 * endpoint's default graph applies (with `--mem`/TDB2 Fuseki that is not the union of the
 * item graphs, so queries use `GRAPH ?g { … }`). Set `queryDefaultGraph` (Fuseki:
 * `urn:x-arq:UnionGraph`) to query the union of all named graphs instead; the metadata graph
 * is one of them, unless it is the dataset's stored default graph (`metadataGraph:
 * urn:x-arq:DefaultGraph` on a TDB2 dataset with `unionDefaultGraph`, docs/backends.md),
 * which keeps the service's records out of every query's default graph. A query that names
 * the metadata graph is refused (`reserved-graph`). A query with a scope
 * (`SparqlQueryOptions.scope`) sees only the item graphs of the scope's collections, listed
 * from the metadata graph for each query and written into it as its dataset (`FROM`,
 * `FROM NAMED`; remote_query.ts): neither the endpoint's default graph nor
 * `queryDefaultGraph` applies then.
 */
import { selectPages } from "../sparql_protocol/bounded_queries.ts";
import { SparqlHttpClient } from "../sparql_protocol/client.ts";
import type { SparqlQueryOptions, SparqlQueryResult } from "../sparql_protocol/query_types.ts";
import { queryRemoteEndpoint } from "../sparql_protocol/remote_query.ts";
import { isCollectionItemKey, isServiceIri } from "../store/item_keys.ts";
import { stringToSparql } from "../sparql_protocol/terms.ts";
import type { StoreContext } from "./store_context.ts";
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { DomainError } from "../errors/domain_error.ts";
import { sparqlParser } from "../sparql_protocol/parser.ts";
import { tooDeepToParse } from "../sparql_protocol/analyze_query.ts";
import { unindentedGenerator } from "../sparql_protocol/generator.ts";
import {
  type CollectionRow,
  mayNameCollectionsGraph,
  withCollectionRows,
} from "../sparql_protocol/collections_graph.ts";

/**
 * Most graphs Virtuoso (7.2) takes in a query's FROM, or in its FROM NAMED (and as many
 * through the protocol's parameters): it compiles each list into one `IN` of at most this
 * many arguments and refuses more (`SP030 Too many arguments`). Measured, not documented;
 * it bounds the item graphs a scoped query can see there.
 */
const VIRTUOSO_MAX_DATASET_GRAPHS = 4094;

/** The user's queries, as the account configured for them. */
export class UserQueries {
  readonly #context: StoreContext;
  /** The account of the user's queries: the service's own unless configured. */
  readonly client: SparqlHttpClient;

  constructor(context: StoreContext) {
    this.#context = context;
    const { config } = context;
    this.client = config.userQueries
      ? new SparqlHttpClient({
        ...config,
        queryUrl: config.userQueries.queryUrl ?? config.queryUrl,
        username: config.userQueries.username,
        password: config.userQueries.password,
      })
      : context.client;
  }

  /** Whether the user's queries run as an account of their own. */
  get separateAccount(): boolean {
    return this.client !== this.#context.client;
  }

  /**
   * The user's query, as the user-query account when one is configured (it cannot read
   * the metadata graph). A store that caps sorted answers (Virtuoso: 10,000 rows) is asked
   * for at most that many rows; the answer then says it was cut.
   *
   * With a scope, the query sees the item graphs of the scope's collections only: they are
   * listed from the metadata graph for this query ({@link #scopeGraphs}), and the query is
   * sent with them as its dataset (remote_query.ts). Never cached: an item deleted and
   * created again under the same IRI in another collection would keep its old visibility.
   */
  async query(sparql: string, options: SparqlQueryOptions): Promise<SparqlQueryResult> {
    const cap = this.#context.capabilities()?.rowCap;
    const reserved = [
      this.#context.config.metadataGraph,
      ...(this.#context.capabilities()?.systemGraphs ?? []),
    ];
    const scope = options.scope;
    if (mayNameCollectionsGraph(sparql)) {
      sparql = await this.#withCollectionsGraph(sparql, scope?.collections);
    }
    const result = await queryRemoteEndpoint(this.client, sparql, {
      ...options,
      limit: cap === undefined ? options.limit : Math.min(options.limit, cap - 1),
      defaultGraphUri: this.#context.config.queryDefaultGraph,
      reservedGraphs: reserved,
      readableGraphs: scope && (() => this.#scopeGraphs(scope.collections)),
      // FROM <collection>: its item graphs (dataset_collections.ts).
      collectionGraphs: (iri) => this.#scopeGraphs([iri]),
      maxDatasetGraphs: /virtuoso/i.test(this.#context.capabilities()?.product ?? "")
        ? VIRTUOSO_MAX_DATASET_GRAPHS
        : undefined,
    });
    return withoutServiceTerms(result, new Set(reserved));
  }

  /**
   * The item graphs of `collections`: one listing over the metadata graph for all of them,
   * paged by graph IRI ({@link keyPage}), as the service's own account (the user-query
   * account cannot read the records).
   */
  async #scopeGraphs(collections: readonly string[]): Promise<string[]> {
    if (collections.length === 0) return [];
    const values = [...new Set(collections)].map(stringToSparql).join(" ");
    const graphs: string[] = [];
    const pages = selectPages(
      this.#context.client,
      "g",
      (page) =>
        `SELECT ?g WHERE { VALUES ?collection { ${values} }
         GRAPH ${this.#context.meta} { ?key rcs:collection ?collection ; rcs:graph ?g }
         ${page.filter} } ${page.modifiers}`,
    );
    for await (const row of pages) graphs.push(row.get("g")!.value);
    return graphs;
  }

  /**
   * `sparql` with its `GRAPH <collections graph>` patterns replaced by the rows they match
   * (`collections_graph.ts`): the item graphs of `collections` (undefined: every collection)
   * with their collection, listed from the metadata graph as the service's own account, at
   * most {@link MAX_COLLECTION_ROWS} (written into the query sent).
   */
  async #withCollectionsGraph(
    sparql: string,
    collections: readonly string[] | undefined,
  ): Promise<string> {
    // A text too deep to parse, or with a syntax error, is refused where the query is read.
    if (tooDeepToParse(sparql)) return sparql;
    let parsed: sparqljs.SparqlQuery;
    try {
      parsed = sparqlParser().parse(sparql);
    } catch {
      return sparql;
    }
    const rows: CollectionRow[] = [];
    if (collections?.length !== 0) {
      const values = collections
        ? `VALUES ?collection { ${[...new Set(collections)].map(stringToSparql).join(" ")} }`
        : "";
      const pages = selectPages(
        this.#context.client,
        "g",
        (page) =>
          `SELECT ?g ?collection ?item WHERE { ${values}
           GRAPH ${this.#context.meta} { ?key rcs:collection ?collection ; rcs:item ?item ;
             rcs:graph ?g }
           ${page.filter} } ${page.modifiers}`,
      );
      for await (const row of pages) {
        if (rows.length >= MAX_COLLECTION_ROWS) throw tooManyCollectionRows();
        rows.push({
          graph: row.get("g")!.value,
          collection: row.get("collection")!.value,
          item: row.get("item")!.value,
        });
      }
    }
    return withCollectionRows(parsed, rows) ? unindentedGenerator().stringify(parsed) : sparql;
  }

  /** Closes the user-query account's client, when it has its own. */
  close(): void {
    if (this.separateAccount) this.client.close();
  }
}

/** Most item graphs the collections graph lists into one query sent to the store. */
const MAX_COLLECTION_ROWS = 10_000;

function tooManyCollectionRows(): DomainError {
  return new DomainError("query-too-broad", {
    detail: `The collections graph would list more than ${MAX_COLLECTION_ROWS} item graphs ` +
      "into the query sent to the SPARQL store: ask per collection, with FROM <collection>.",
  });
}

/**
 * The answer without rows or triples that name the service's records or a reserved graph:
 * where the store cannot keep them out of the user's view (Fuseki's in-memory union graph
 * holds the metadata graph; Virtuoso lists every graph's name for `DISTINCT ?g`), they are
 * dropped here, so the user never sees them whatever the store. An item graph named by a
 * collection's key (`store/item_keys.ts`) is in the service's namespace too, but it is the
 * user's graph: it stays.
 */
function withoutServiceTerms(result: SparqlQueryResult, reserved: Set<string>): SparqlQueryResult {
  const hidden = (term: { termType: string; value: string } | undefined) =>
    term !== undefined && term.termType === "NamedNode" &&
    ((isServiceIri(term.value) && !isCollectionItemKey(term.value)) ||
      reserved.has(term.value));
  if (result.kind === "bindings") {
    const rows = result.rows.filter((row) => ![...row.values()].some(hidden));
    return rows.length === result.rows.length ? result : { ...result, rows };
  }
  if (result.kind === "quads") {
    const quads = result.quads.filter((quad) =>
      !hidden(quad.subject) && !hidden(quad.predicate) && !hidden(quad.object)
    );
    return quads.length === result.quads.length ? result : { ...result, quads };
  }
  return result;
}
