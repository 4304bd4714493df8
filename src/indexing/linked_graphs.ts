/**
 * The graphs a collection's search fields read beyond the item's own: a path like
 * `dct:subject/skos:prefLabel` steps from the item to a concept and reads the concept's
 * label from the concept's own item graph, in whichever collection it is stored.
 *
 * {@link LinkedGraphLoader} reads linked graphs for a whole batch of items at once: every
 * look-up asked for while the batch's paths are evaluated is collected and read in one store
 * call per collection (the store finds items by collection), then shared by the batch.
 * {@link ItemPathGraph} is one item's view for path evaluation: its own graph plus the
 * graph of each IRI a path steps on, and the list of those IRIs, which the item's document
 * keeps (`linkedItems`) so that a change to one of them re-indexes the item.
 */
import { DataFactory, type Quad, type Term } from "n3";
import type { TripleStore } from "../store/triple_store.ts";
import { evaluatePath, type PathGraph, termKey } from "../fields/field_paths.ts";
import {
  fieldContribution,
  type FieldText,
  type IndexField,
  MappedFieldError,
} from "../search/mapped_fields.ts";
import type { SearchFieldValue } from "../search/search_engine.ts";

/** Most linked resources one item's fields may read. */
export const MAX_LINKED_RESOURCES = 256;

/**
 * A graph's triples by (subject, predicate), and lazily by (object, predicate): most paths
 * only step forward, and keying every literal object would cost more than the paths do.
 */
class GraphIndex {
  readonly #quads: Quad[];
  readonly #forward = new Map<string, Term[]>();
  #backward?: Map<string, Term[]>;
  /** What this graph's blank node labels start with. */
  readonly prefix: string;

  /** Indexes `quads`, renaming blank nodes with `prefix` so graphs never share one. */
  constructor(quads: Quad[], prefix: string) {
    this.prefix = prefix;
    this.#quads = quads;
    for (const quad of quads) {
      append(this.#forward, this.#key(quad.subject, quad.predicate.value), this.#own(quad.object));
    }
  }

  objects(node: Term, predicate: string): Term[] {
    return this.#forward.get(stepKey(node, predicate)) ?? [];
  }

  subjects(node: Term, predicate: string): Term[] {
    if (!this.#backward) {
      this.#backward = new Map();
      for (const quad of this.#quads) {
        append(
          this.#backward,
          this.#key(quad.object, quad.predicate.value),
          this.#own(quad.subject),
        );
      }
    }
    return this.#backward.get(stepKey(node, predicate)) ?? [];
  }

  /** The term as this graph names it: blank nodes get the graph's prefix. */
  #own(term: Term): Term {
    return term.termType === "BlankNode" ? DataFactory.blankNode(this.prefix + term.value) : term;
  }

  #key(term: Term, predicate: string): string {
    return stepKey(this.#own(term), predicate);
  }
}

function stepKey(node: Term, predicate: string): string {
  return `${termKey(node)}\n${predicate}`;
}

function append(map: Map<string, Term[]>, key: string, term: Term): void {
  const list = map.get(key);
  if (list) list.push(term);
  else map.set(key, [term]);
}

/** Reads linked resources' graphs for a batch, coalescing look-ups into batched reads. */
export class LinkedGraphLoader {
  readonly #store: TripleStore;
  readonly #collections: readonly string[];
  readonly #graphs = new Map<string, Promise<GraphIndex | undefined>>();
  #pending = new Map<string, (graph: Quad[] | undefined) => void>();
  #failures = new Map<string, (error: unknown) => void>();
  #scheduled = false;
  #loaded = 0;
  /** Linked graphs found per collection, kept by the caller from batch to batch. */
  readonly #hits: Map<string, number>;
  /** The collection of the items whose links are read: asked first. */
  readonly #own?: string;

  /**
   * `collections`: every collection an item may be stored in; `hits` counts where linked
   * items were found, so that later reads ask those collections first; `own`: the linking
   * items' collection, asked before any other.
   */
  constructor(
    store: TripleStore,
    collections: readonly string[],
    hits: Map<string, number> = new Map(),
    own?: string,
  ) {
    this.#store = store;
    this.#collections = collections;
    this.#hits = hits;
    this.#own = own;
  }

  /** The graph of the item `uri` (renamed blank nodes), or undefined when no item has it. */
  graph(uri: string): Promise<GraphIndex | undefined> {
    let graph = this.#graphs.get(uri);
    if (!graph) {
      const prefix = `l${++this.#loaded}_`;
      graph = new Promise<Quad[] | undefined>((resolve, reject) => {
        this.#pending.set(uri, resolve);
        this.#failures.set(uri, reject);
        this.#schedule();
      }).then((quads) => quads === undefined ? undefined : new GraphIndex(quads, prefix));
      this.#graphs.set(uri, graph);
    }
    return graph;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // A timer rather than a microtask: every item of the batch asks before the read starts.
    setTimeout(() => this.#flush(), 0);
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const pending = this.#pending;
    const failures = this.#failures;
    this.#pending = new Map();
    this.#failures = new Map();
    try {
      const found = new Map<string, Quad[]>();
      let remaining = [...pending.keys()];
      // The batch's own collection first: an IRI several collections hold is read where
      // the item is (a vocabulary's own terms). Then the collections that held links so
      // far: links of a batch tend to share them.
      const ordered = [...this.#collections].sort((a, b) =>
        Number(b === this.#own) - Number(a === this.#own) ||
        (this.#hits.get(b) ?? 0) - (this.#hits.get(a) ?? 0)
      );
      for (const collection of ordered) {
        if (remaining.length === 0) break;
        const graphs = await this.#store.readItemGraphs(collection, remaining);
        for (const { record, quads } of graphs) found.set(record.uri, quads);
        this.#hits.set(collection, (this.#hits.get(collection) ?? 0) + graphs.length);
        remaining = remaining.filter((uri) => !found.has(uri));
      }
      for (const [uri, resolve] of pending) resolve(found.get(uri));
    } catch (error) {
      for (const reject of failures.values()) reject(error);
    }
  }
}

/** What an item's search fields contribute to its document. */
export interface MappedFields {
  fields: Record<string, SearchFieldValue>;
  texts: FieldText[];
  /** The IRIs whose graphs the paths read: the item is re-indexed when one changes. */
  linkedItems: string[];
}

/** Evaluates every field of a collection for one item; throws {@link MappedFieldError}. */
export async function mappedFieldsOf(
  fields: readonly IndexField[],
  item: string,
  quads: Quad[],
  loader: LinkedGraphLoader,
): Promise<MappedFields> {
  const graph = new ItemPathGraph(item, quads, loader);
  const start = DataFactory.namedNode(item);
  const result: MappedFields = { fields: {}, texts: [], linkedItems: [] };
  for (const field of fields) {
    const contribution = fieldContribution(field, await evaluatePath(field.compiled, start, graph));
    if (contribution.value !== undefined) result.fields[field.name] = contribution.value;
    result.texts.push(...contribution.texts);
  }
  result.linkedItems = graph.linkedResources();
  return result;
}

/**
 * One item's graph for path evaluation: its own triples, and for each IRI a path stands on
 * (other than the item), that resource's item graph. Blank nodes stay in their graph.
 */
export class ItemPathGraph implements PathGraph {
  readonly #item: string;
  readonly #own: GraphIndex;
  readonly #loader: LinkedGraphLoader;
  readonly #linked = new Map<string, Promise<GraphIndex | undefined>>();
  /** Graphs by the blank-node prefix they were given. */
  readonly #byPrefix = new Map<string, GraphIndex>();

  constructor(item: string, quads: Quad[], loader: LinkedGraphLoader) {
    this.#item = item;
    this.#own = new GraphIndex(quads, "i_");
    this.#byPrefix.set("i_", this.#own);
    this.#loader = loader;
  }

  /** The IRIs whose graphs were read (found or not), sorted. */
  linkedResources(): string[] {
    return [...this.#linked.keys()].sort();
  }

  async objects(node: Term, predicate: string): Promise<Term[]> {
    return (await this.#graphsOf(node)).flatMap((graph) => graph.objects(node, predicate));
  }

  async subjects(node: Term, predicate: string): Promise<Term[]> {
    return (await this.#graphsOf(node)).flatMap((graph) => graph.subjects(node, predicate));
  }

  /** Where triples about `node` are: the item's graph, and the node's own if it has one. */
  async #graphsOf(node: Term): Promise<GraphIndex[]> {
    if (node.termType === "BlankNode") {
      const prefix = node.value.slice(0, node.value.indexOf("_") + 1);
      const graph = this.#byPrefix.get(prefix);
      return graph ? [graph] : [];
    }
    if (node.termType !== "NamedNode" || node.value === this.#item) return [this.#own];
    let linked = this.#linked.get(node.value);
    if (!linked) {
      if (this.#linked.size >= MAX_LINKED_RESOURCES) {
        throw new MappedFieldError(
          `the search fields read more than ${MAX_LINKED_RESOURCES} linked resources`,
        );
      }
      linked = this.#loader.graph(node.value);
      this.#linked.set(node.value, linked);
    }
    const graph = await linked;
    if (graph) this.#byPrefix.set(graph.prefix, graph);
    return graph ? [this.#own, graph] : [this.#own];
  }
}
