/**
 * The configuration's defaults, read from the schema (the one place they are written), for
 * the stores and engines tests build by hand rather than through `buildServices`.
 */
import { configSchema } from "../../src/config/schema.ts";

/** `service` of a configuration that sets nothing. */
export const CONFIG_DEFAULTS = configSchema.parse({}).service;

/** `service.store.groupCommit` at its defaults. */
export const GROUP_COMMIT = CONFIG_DEFAULTS.store.groupCommit;

/** What a `SparqlTripleStore` built by hand needs besides its endpoints, at the defaults. */
export const SPARQL_STORE_DEFAULTS = {
  groupCommit: GROUP_COMMIT,
  maxInlineTriples: CONFIG_DEFAULTS.store.sparql.maxInlineTriples,
  metadataGraph: CONFIG_DEFAULTS.store.sparql.metadataGraph,
};
