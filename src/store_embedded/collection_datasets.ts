/**
 * Collections in queries (issue 43). As datasets: a query's `FROM <C>` or `FROM NAMED <C>` (and the
 * protocol's `default-graph-uri`, `named-graph-uri`, written into the query as FROM by
 * `analyze_query.ts`) naming a collection stands for the collection's item graphs: the
 * default graph is then their merge, and `GRAPH ?g` ranges over them. An IRI that names no
 * collection holding items is a graph name, as before (an empty collection and an unknown
 * graph both give nothing).
 *
 * A dataset made of collections alone is also a query scope: the quads are read from the
 * collections' items only (the fallback's load), and a query whose default graph is such a
 * dataset, and that reads no named graph, runs on the compiled SQL path over those
 * collections, as the union of the readable ones does.
 *
 * And as data: the named graph `COLLECTIONS_GRAPH` (`sparql_protocol/collections_graph.ts`)
 * says which collection holds which item graph; its triples are made from the items table
 * when a query names it ({@link CollectionDatasets.collectionsGraph}).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
import type { Dataset } from "./sparql_fallback.ts";
import {
  COLLECTIONS_GRAPH,
  IS_PART_OF,
  PRIMARY_TOPIC,
} from "../sparql_protocol/collections_graph.ts";
import { encodeIri } from "../rdf/writers/ntriples.ts";

/** A dataset with its collections replaced by their item graphs. */
export interface ExpandedDataset {
  dataset: Dataset;
  /** When every IRI of the dataset named a collection: those collections. */
  collections?: string[];
}

/** The collections of the store, asked of its items table. */
export class CollectionDatasets {
  readonly #db: DatabaseSync;
  readonly #holdsItems: StatementSync;
  readonly #itemGraphs: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#holdsItems = db.prepare("SELECT 1 FROM items WHERE collection = ? LIMIT 1");
    this.#itemGraphs = db.prepare(
      "SELECT t.term AS graph FROM items i JOIN terms t ON t.id = i.graph " +
        "WHERE i.collection = ? ORDER BY t.term",
    );
  }

  /**
   * The quads of the collections graph (N-Quads): `<item graph> dct:isPartOf <collection>`
   * and `<item graph> foaf:primaryTopic <item>` for every item in `scope` (undefined: every
   * item), in that graph; none when the query's dataset lists named graphs without it.
   */
  collectionsGraph(scope: readonly string[] | undefined, dataset?: Dataset): string {
    if (dataset && !dataset.named.includes(COLLECTIONS_GRAPH)) return "";
    if (scope?.length === 0) return "";
    const rows = this.#db.prepare(
      `SELECT t.term AS graph, i.uri, i.collection FROM items i JOIN terms t ON t.id = i.graph${
        scope ? ` WHERE i.collection IN (${scope.map(() => "?").join(", ")})` : ""
      }`,
    ).all(...(scope ?? [])) as { graph: string; uri: string; collection: string }[];
    const isPartOf = ` ${encodeIri(IS_PART_OF)} `;
    const primaryTopic = ` ${encodeIri(PRIMARY_TOPIC)} `;
    const graph = ` ${encodeIri(COLLECTIONS_GRAPH)} .\n`;
    return rows.map((row) => {
      const name = encodeIri(row.graph);
      return name + isPartOf + encodeIri(row.collection) + graph +
        name + primaryTopic + encodeIri(row.uri) + graph;
    }).join("");
  }

  /** Whether `iri` is a collection that holds items. */
  isCollection(iri: string): boolean {
    return this.#holdsItems.get(iri) !== undefined;
  }

  /** `dataset` with each collection IRI replaced by the collection's item graphs. */
  expand(dataset: Dataset): ExpandedDataset {
    const collections = new Set<string>();
    const graphsOf = (iris: string[]) =>
      iris.flatMap((iri) => {
        if (!this.isCollection(iri)) return [iri];
        collections.add(iri);
        return (this.#itemGraphs.all(iri) as { graph: string }[]).map((row) => row.graph);
      });
    const expanded = { default: graphsOf(dataset.default), named: graphsOf(dataset.named) };
    const all = [...dataset.default, ...dataset.named];
    return {
      dataset: expanded,
      ...(all.length > 0 && all.every((iri) => collections.has(iri))
        ? { collections: [...collections] }
        : {}),
    };
  }

  /**
   * The collections whose union is the query's whole dataset, when its FROM names only
   * collections, it has no FROM NAMED, and it reads no named graph (no `GRAPH`): it then
   * answers as the union of those collections' items. Undefined otherwise.
   */
  defaultGraphCollections(query: sparqljs.SparqlQuery): string[] | undefined {
    if (query.type !== "query" || !query.from) return undefined;
    const { default: defaults, named } = query.from;
    if (named.length > 0 || defaults.length === 0) return undefined;
    if (readsNamedGraphs(query)) return undefined;
    const iris = defaults.map((iri) => iri.value);
    return iris.every((iri) => this.isCollection(iri)) ? [...new Set(iris)] : undefined;
  }
}

/** The scope a dataset of `collections` leaves of `scope` (undefined: every collection). */
export function narrowedScope(
  scope: readonly string[] | undefined,
  collections: readonly string[],
): string[] {
  return scope === undefined ? [...collections] : collections.filter((c) => scope.includes(c));
}

/** Whether the query has a `GRAPH` pattern anywhere (subqueries and EXISTS included). */
function readsNamedGraphs(query: sparqljs.SparqlQuery): boolean {
  let found = false;
  const visit = (node: unknown): void => {
    if (found || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    if ((node as { type?: string }).type === "graph") {
      found = true;
      return;
    }
    Object.values(node).forEach(visit);
  };
  visit(query);
  return found;
}
