/**
 * What the parts of the SPARQL store share (`sparql_triple_store.ts` composes them): its
 * configuration, the service account's client, the metadata graph, where an item's graph is,
 * and what the capability check found.
 */
import type { Quad } from "n3";
import type { SparqlEndpointConfig, SparqlHttpClient } from "../sparql_protocol/client.ts";
import type { GroupCommitOptions } from "../store/group_commit.ts";
import type { StoreCapabilities } from "./capabilities.ts";

/** Configuration of a SPARQL triple store. */
export interface SparqlTripleStoreConfig extends SparqlEndpointConfig {
  /** Item graph name; `{item}` is replaced by the item URI. Unset: the item URI. */
  graphTemplate?: string;
  /** Where item metadata lives (`service.store.sparql.metadataGraph`). */
  metadataGraph: string;
  /** Sent as `default-graph-uri` with `query()`; unset, the endpoint's default graph. */
  queryDefaultGraph?: string;
  /**
   * The account `query()` (the user's queries) runs as, when it is not the service's own: a
   * read-only account that cannot read the metadata graph (Virtuoso's graph-level
   * security, docs/backends.md). Its query URL defaults to `queryUrl`.
   */
  userQueries?: { queryUrl?: string; username?: string; password?: string };
  /**
   * Items with more triples are staged through the Graph Store Protocol
   * (`item_writes.ts`); `service.store.sparql.maxInlineTriples`.
   */
  maxInlineTriples: number;
  /** The hash of an item's triples, for stores that rewrite literal forms. */
  hash?: (quads: Quad[]) => Promise<string>;
  /** Bounds of a group of writes sent as one update request (`service.store.groupCommit`). */
  groupCommit: GroupCommitOptions;
}

/** The store's shared state, as its reads, writes and queries see it. */
export interface StoreContext {
  readonly config: SparqlTripleStoreConfig;
  /** The service's own account. */
  readonly client: SparqlHttpClient;
  /** The metadata graph, as SPARQL. */
  readonly meta: string;
  /** What the capability check found; undefined (assumed standard) until it ran. */
  capabilities(): StoreCapabilities | undefined;
}

/** The graph name of an item: its URI, or the configured template filled with it. */
export function graphOf(config: SparqlTripleStoreConfig, uri: string): string {
  const template = config.graphTemplate;
  // A function, so that `$&` and the like in the URI are not replacement patterns.
  return template === undefined ? uri : template.replaceAll("{item}", () => uri);
}
