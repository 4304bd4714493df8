/**
 * Initialise (docs/api.md): add a collection's default data to an RDF body by running its
 * `initialize` rules (workspace rules first, then the collection's) with `?this` bound to
 * each listed URI. Results are added; nothing is removed.
 *
 * Rules run in order over one working store, so a later rule sees what earlier ones added.
 * Rules with `from: store` also see the collection's stored items (kept in a separate graph,
 * so they are matched but never copied into the answer).
 */
import oxigraph from "oxigraph";
import { type Quad, termToId } from "n3";
import { DomainError } from "../errors/domain_error.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { CollectionConfig, InitializeRule, WorkspaceConfig } from "../config/schema.ts";
import type { TripleStore } from "../store/triple_store.ts";
import { fromOxigraphQuad, toOxigraphQuad } from "../rdf/oxigraph_terms.ts";
import { TagSpellings } from "../rdf/language_tags.ts";
import { type BoundableQuery, parseRuleQuery } from "./rule_query.ts";
import { distinctQuads } from "../rdf/dedupe.ts";

const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
/** Where `from: store` data sits in the working store. */
const STORE_GRAPH = oxigraph.namedNode("urn:rdf-content-service:initialize:store");

interface CompiledRule {
  rule: InitializeRule;
  query: BoundableQuery;
}

/**
 * Runs initialise rules. customer.yml's rules are parsed at start-up (a broken rule stops
 * the service); a collection made at run time has its rules checked when it is made
 * ({@link initializeRulesProblem}) and parsed at first use, again after each change.
 */
export class Initializer {
  readonly #rules = new WeakMap<CollectionConfig, CompiledRule[]>();

  constructor(private readonly catalog: Catalog, private readonly store: TripleStore) {
    for (const { collection, workspace } of catalog.collections()) {
      this.#rules.set(collection, compileRules(collection, workspace));
    }
  }

  #rulesOf(collection: string): CompiledRule[] {
    const entry = this.catalog.collection(collection);
    let rules = this.#rules.get(entry.collection);
    if (!rules) {
      rules = compileRules(entry.collection, entry.workspace);
      this.#rules.set(entry.collection, rules);
    }
    return rules;
  }

  /** The body plus every rule's additions for `uris`. */
  async initialize(collection: string, uris: string[], body: Quad[]): Promise<Quad[]> {
    const rules = this.#rulesOf(collection);
    const working = new oxigraph.Store();
    for (const quad of body) working.add(toOxigraphQuad(quad));
    const missing = uris.filter((uri) => !mentions(working, uri));
    if (missing.length > 0) {
      throw new DomainError("uri-not-in-body", {
        detail: `Listed URIs must occur in the body; these do not: ${
          missing.map((uri) => `<${uri}>`).join(", ")
        }.`,
        errors: missing.map((uri) => ({
          path: "uri",
          message: `${uri} does not occur in the body`,
        })),
      });
    }
    if (rules.some((compiled) => compiled.rule.from === "store")) {
      await this.#loadStoredItems(collection, working);
    }
    const additions: Quad[] = [];
    // oxigraph lower-cases language tags: what the rules add takes the body's spelling.
    const spellings = new TagSpellings();
    for (const quad of body) spellings.noteId(termToId(quad.object));
    for (const { rule, query } of rules) {
      for (const uri of uris) {
        if (rule.forType && !hasType(working, uri, rule.forType)) continue;
        const added = working.query(query.bind(uri), {
          default_graph: rule.from === "store"
            ? [oxigraph.defaultGraph(), STORE_GRAPH]
            : oxigraph.defaultGraph(),
        }) as ReturnType<typeof oxigraph.quad>[];
        for (const quad of added) {
          working.add(quad);
          additions.push(spellings.restoreQuad(fromOxigraphQuad(quad)));
        }
      }
    }
    // The body as the caller sent it: oxigraph's store rewrites literal spellings
    // ("007"^^xsd:integer becomes "7"), and initialise must not change the caller's data.
    return distinctQuads([...body, ...additions]);
  }

  /**
   * Copies the collection's items into the store graph, blank nodes renamed per item so that
   * neither two items nor an item and the body share one by accident of labelling.
   */
  async #loadStoredItems(collection: string, working: InstanceType<typeof oxigraph.Store>) {
    let itemNumber = 0;
    for await (const item of this.store.listItems(collection)) {
      itemNumber++;
      const scope = (term: ReturnType<typeof oxigraph.quad>["subject"]) =>
        term.termType === "BlankNode" ? oxigraph.blankNode(`s${itemNumber}_${term.value}`) : term;
      const read = await this.store.readItem(collection, item.uri, item);
      for await (const quad of read.quads) {
        const copy = toOxigraphQuad(quad);
        working.add(
          oxigraph.quad(
            scope(copy.subject),
            copy.predicate,
            scope(copy.object as never),
            STORE_GRAPH,
          ),
        );
      }
    }
  }
}

/** The workspace's rules, then the collection's, parsed; throws naming the broken rule. */
function compileRules(collection: CollectionConfig, workspace: WorkspaceConfig): CompiledRule[] {
  return [...workspace.initialize, ...collection.initialize].map((rule) => {
    try {
      return { rule, query: parseRuleQuery(rule.construct) };
    } catch (error) {
      throw new Error(
        `initialize rule '${rule.name}' of <${collection.uri}>: ${(error as Error).message}`,
      );
    }
  });
}

/**
 * Why a collection's initialise rules cannot run, as an invalid-settings problem naming the rule's
 * `construct`; undefined when every rule parses.
 */
export function initializeRulesProblem(collection: CollectionConfig): DomainError | undefined {
  for (const [position, rule] of collection.initialize.entries()) {
    try {
      parseRuleQuery(rule.construct);
    } catch (error) {
      const path = `/initialize/${position}/construct`;
      return new DomainError("invalid-settings", {
        detail: `initialize rule '${rule.name}': ${(error as Error).message}`,
        errors: [{ path, message: (error as Error).message }],
      });
    }
  }
  return undefined;
}

function mentions(store: InstanceType<typeof oxigraph.Store>, uri: string): boolean {
  const node = oxigraph.namedNode(uri);
  const graph = oxigraph.defaultGraph();
  return store.match(node, null, null, graph).length > 0 ||
    store.match(null, null, node, graph).length > 0 ||
    store.match(null, node, null, graph).length > 0;
}

function hasType(store: InstanceType<typeof oxigraph.Store>, uri: string, type: string): boolean {
  return store.match(
    oxigraph.namedNode(uri),
    oxigraph.namedNode(RDF_TYPE),
    oxigraph.namedNode(type),
    oxigraph.defaultGraph(),
  ).length > 0;
}
