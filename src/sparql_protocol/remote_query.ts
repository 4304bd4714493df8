/**
 * A read-only query against a remote SPARQL 1.1 Query endpoint, bounded and read into a
 * {@link SparqlQueryResult}: the one path both the SPARQL store and the query tool's extra
 * endpoints take.
 *
 * A query confined to some graphs (`readableGraphs`: a query scope's item graphs) is sent
 * with its dataset written out as `FROM` and `FROM NAMED` in place of its own: those graphs,
 * or the query's own dataset (or the protocol's, which wins over it) kept to those graphs.
 * The dataset goes into the query text rather than into the protocol's `default-graph-uri`
 * and `named-graph-uri`, because Virtuoso (7.2) adds those to the query's own `FROM` instead
 * of letting them replace it; Fuseki honours either. A dataset with nothing left names
 * {@link NO_GRAPH}, so the endpoint never falls back to its whole default dataset. `GRAPH
 * <g>` naming any other graph is written as `GRAPH <NO_GRAPH>`: Fuseki's own names
 * (`urn:x-arq:UnionGraph`, `urn:x-arq:DefaultGraph`) would otherwise match the readable
 * graphs' union, and Virtuoso finds `EXISTS { GRAPH <g> { … } }` true, whatever the
 * pattern, for a graph outside the named graphs (it leaks nothing, the answer is wrong),
 * but false for the empty {@link NO_GRAPH} listed among them.
 */
import { Parser } from "n3";
import { writtenTagFactory } from "../rdf/language_tags.ts";
import type { Quad } from "n3";
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import { type CollectionGraphs, datasetWithCollections } from "./dataset_collections.ts";
import { DomainError } from "../errors/domain_error.ts";
import { type AnalyzedQuery, analyzeQuery, visitQueryNodes } from "./analyze_query.ts";
import { unindentedGenerator } from "./generator.ts";
import { sparqlParser } from "./parser.ts";
import { EndpointRefusal, type SparqlHttpClient, storeProblemFromError } from "./client.ts";
import { malformedResults, readSparqlJsonResults } from "./results_json.ts";
import { streamNTriples } from "./ntriples_stream.ts";
import type { QueryDataset, SparqlQueryOptions, SparqlQueryResult } from "./query_types.ts";
import { SPARQL_RESULTS_JSON } from "./results_formats.ts";

const ACCEPT_BINDINGS = `${SPARQL_RESULTS_JSON}, application/json;q=0.5`;
const ACCEPT_GRAPH = "application/n-triples, text/turtle;q=0.8, text/plain;q=0.1";

/** A graph that cannot exist: the whole dataset of a confined query that may see none. */
export const NO_GRAPH = "urn:rdf-content-service:no-graph";

/** Options of {@link queryRemoteEndpoint}. */
export interface RemoteQueryOptions extends SparqlQueryOptions {
  /** Sent as the protocol's `default-graph-uri` (Fuseki: `urn:x-arq:UnionGraph`). */
  defaultGraphUri?: string;
  /** Graphs the query may not name (invalid-input `reserved-graph`): the store's metadata graph. */
  reservedGraphs?: readonly string[];
  /**
   * The only graphs the query may see, asked for once the query was read (and not refused):
   * the item graphs of `scope`, which only a store can list. The query then answers as over
   * a dataset holding these graphs alone (see the module comment). Unset, with `scope`
   * set: refused, rather than run unconfined.
   */
  readableGraphs?: () => Promise<readonly string[]>;
  /**
   * Most graphs the endpoint takes in either part of a query's dataset (Virtuoso 7.2: 4,094;
   * more is refused as `SP030 Too many arguments`): a confined query whose dataset needs
   * more is refused as unprocessable `query-too-broad` before it is sent.
   */
  maxDatasetGraphs?: number;
  /**
   * The item graphs of a collection (`dataset_collections.ts`): given, a dataset that names
   * a collection stands for its item graphs.
   */
  collectionGraphs?: CollectionGraphs;
}

/**
 * Runs `sparql` on the client's endpoint. Updates are refused before anything is sent, and
 * the endpoint is asked for one row more than `limit` only, so it does not compute rows
 * nobody will see; the readers stop at `limit` and set `truncated`.
 */
export async function queryRemoteEndpoint(
  client: SparqlHttpClient,
  sparql: string,
  options: RemoteQueryOptions,
): Promise<SparqlQueryResult> {
  if (options.scope !== undefined && options.readableGraphs === undefined) {
    throw new Error("a query scope needs the graphs it may read (readableGraphs)");
  }
  if (options.collectionGraphs) {
    // Collections named as the dataset become their item graphs, as the protocol's dataset.
    const started = performance.now();
    const expanded = await datasetWithCollections(
      sparql,
      options.dataset,
      options.collectionGraphs,
    );
    const timeoutMs = Math.floor(options.timeoutMs - (performance.now() - started));
    if (expanded) options = { ...options, dataset: expanded, timeoutMs };
  }
  const { limit, dataset } = options;
  let timeoutMs = options.timeoutMs;
  let analyzed = analyzeQuery(sparql, {
    rowLimit: limit,
    dataset,
    reservedGraphs: options.reservedGraphs,
  });
  if (options.readableGraphs) {
    // The listing's time is the query's: what is left of its budget bounds the request.
    const started = performance.now();
    const readable = new Set(await options.readableGraphs());
    timeoutMs = Math.floor(timeoutMs - (performance.now() - started));
    if (timeoutMs <= 0) {
      throw new DomainError("query-timeout", {
        detail: `The SPARQL query did not finish within ${options.timeoutMs} ms`,
      });
    }
    analyzed = confined(sparql, readable, options);
  }
  // The protocol parameter would override the query's own FROM clauses.
  const defaultGraphUri = analyzed.hasDataset ? undefined : options.defaultGraphUri;
  const graphResult = analyzed.form === "CONSTRUCT" || analyzed.form === "DESCRIBE";
  let response: Response;
  try {
    response = await client.query(analyzed.text, graphResult ? ACCEPT_GRAPH : ACCEPT_BINDINGS, {
      timeoutMs,
      defaultGraphUri,
    });
  } catch (error) {
    throw refusedQueryAsInvalid(error);
  }
  // The response timeout keeps running while the body is read.
  try {
    return await readResult(response, graphResult, limit);
  } catch (error) {
    throw storeProblemFromError(error, client.config.queryUrl, timeoutMs, timeoutMs);
  }
}

async function readResult(
  response: Response,
  graphResult: boolean,
  limit: number,
): Promise<SparqlQueryResult> {
  const contentType = response.headers.get("Content-Type")?.split(";")[0].trim().toLowerCase();
  if (!response.body) throw malformedResults("the response has no body");
  if (contentType === SPARQL_RESULTS_JSON || contentType === "application/json") {
    const results = await readSparqlJsonResults(response.body, limit);
    if (graphResult) throw malformedResults("a CONSTRUCT or DESCRIBE answered with bindings");
    // A store that cut its answer at its own cap says so in this header (Virtuoso): the
    // answer is then not complete, whatever the row count looks like.
    const cap = Number(response.headers.get("X-SPARQL-MaxRows") ?? NaN);
    if (results.kind === "bindings" && Number.isFinite(cap) && results.rows.length >= cap) {
      return { ...results, truncated: true };
    }
    return results;
  }
  if (!graphResult) {
    await response.body.cancel();
    throw malformedResults(`unexpected content type ${JSON.stringify(contentType)}`);
  }
  if (contentType === "application/n-triples" || contentType === "text/plain") {
    return await firstQuads(streamNTriples(response.body), limit);
  }
  if (contentType === "text/turtle") {
    let quads: Quad[];
    try {
      quads = new Parser({ format: "Turtle", factory: writtenTagFactory }).parse(
        await response.text(),
      );
    } catch (error) {
      throw malformedResults(`Turtle: ${error instanceof Error ? error.message : error}`);
    }
    return await firstQuads(quads, limit);
  }
  await response.body.cancel();
  throw malformedResults(`unexpected content type ${JSON.stringify(contentType)}`);
}

/**
 * `sparql` (already read and not refused) confined to the `readable` graphs: its dataset
 * written out as FROM and FROM NAMED, its `GRAPH <g>` outside them pointed at
 * {@link NO_GRAPH} (module comment).
 */
function confined(
  sparql: string,
  readable: ReadonlySet<string>,
  options: RemoteQueryOptions,
): AnalyzedQuery {
  const parsed = sparqlParser().parse(sparql) as sparqljs.Query;
  const asked = givenDataset(options.dataset) ?? givenDataset({
    defaultGraphs: parsed.from?.default.map((iri) => iri.value) ?? [],
    namedGraphs: parsed.from?.named.map((iri) => iri.value) ?? [],
  });
  const kept = (graphs: Iterable<string>) =>
    [...new Set(graphs)].filter((graph) => readable.has(graph));
  const defaultGraphs = kept(asked?.defaultGraphs ?? readable);
  const dataset: QueryDataset = {
    defaultGraphs: defaultGraphs.length > 0 ? defaultGraphs : [NO_GRAPH],
    // Always among the named graphs, where the `GRAPH <g>` pointed away lead: Virtuoso finds
    // `EXISTS { GRAPH <g> { … } }` true for any graph outside the named ones, and false, as
    // it should be, for an empty graph among them.
    namedGraphs: [...kept(asked?.namedGraphs ?? readable), NO_GRAPH],
  };
  const most = Math.max(dataset.defaultGraphs.length, dataset.namedGraphs.length);
  if (options.maxDatasetGraphs !== undefined && most > options.maxDatasetGraphs) {
    throw new DomainError("query-too-broad", {
      detail: `The query's dataset would name ${most} graphs, more than the SPARQL store ` +
        `takes in one query (${options.maxDatasetGraphs}): name fewer graphs with FROM or ` +
        "FROM NAMED, or query fewer collections.",
    });
  }
  const text = pointGraphsAway(parsed, readable) ? unindentedGenerator().stringify(parsed) : sparql;
  return analyzeQuery(text, {
    rowLimit: options.limit,
    dataset,
    reservedGraphs: options.reservedGraphs,
  });
}

/** The dataset when it names any graph (the protocol's, or the query's own FROM clauses). */
function givenDataset(dataset: QueryDataset | undefined): QueryDataset | undefined {
  if (dataset === undefined) return undefined;
  return dataset.defaultGraphs.length + dataset.namedGraphs.length > 0 ? dataset : undefined;
}

/**
 * Points every `GRAPH <g>` of `parsed` (wherever nested: subqueries, EXISTS, MINUS) whose
 * `g` is not readable at {@link NO_GRAPH}; true when it changed any.
 */
function pointGraphsAway(parsed: sparqljs.Query, readable: ReadonlySet<string>): boolean {
  let changed = false;
  // The whole query: an EXISTS may also sit in a projection, HAVING or ORDER BY.
  visitQueryNodes(parsed, (record) => {
    if (record.type !== "graph") return;
    const name = record.name as { termType?: string; value?: string } | undefined;
    if (name?.termType === "NamedNode" && !readable.has(name.value ?? "")) {
      record.name = { termType: "NamedNode", value: NO_GRAPH };
      changed = true;
    }
  });
  return changed;
}

/** At most `limit` quads, and whether there were more. */
async function firstQuads(
  quads: AsyncIterable<Quad> | Iterable<Quad>,
  limit: number,
): Promise<SparqlQueryResult> {
  const kept: Quad[] = [];
  for await (const quad of quads) {
    if (kept.length >= limit) return { kind: "quads", quads: kept, truncated: true };
    kept.push(quad);
  }
  return { kind: "quads", quads: kept, truncated: false };
}

/**
 * A query the endpoint refused as a bad request (syntax it does not support, an unknown
 * function) is the caller's mistake: invalid-input `invalid-sparql` with the endpoint's words.
 */
function refusedQueryAsInvalid(error: unknown): unknown {
  if (error instanceof EndpointRefusal && error.badRequest) {
    return new DomainError("invalid-sparql", {
      detail: `The SPARQL endpoint refused the query: ${
        error.message.replace(/^.*? with HTTP 400: /, "")
      }`,
      errors: [{ path: "query", message: "refused by the endpoint" }],
    });
  }
  return error;
}
