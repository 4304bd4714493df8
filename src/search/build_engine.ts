/**
 * The search engine the configuration names, and the index name of each collection.
 */
import type { DatabaseSync } from "node:sqlite";
import type { CollectionConfig, ServiceConfig } from "../config/schema.ts";
import { readCaCertificates } from "../config/ca_file.ts";
import { log } from "../log/logger.ts";
import type { ClampWarning } from "./clamp.ts";
import { EmbeddedSearchEngine } from "./sqlite_fts/sqlite_fts_engine.ts";
import { OpenSearchEngine } from "./opensearch/opensearch_engine.ts";
import type { CollectionIndexRef, SearchEngine } from "./search_engine.ts";
import { fieldMappings } from "./mapped_fields.ts";

/** Clamp warnings go to the service log as one `warn` line each. */
export const logClampWarning: ClampWarning = (entry) => {
  const { msg, ...fields } = entry;
  log("warn", typeof msg === "string" ? msg : "search query clamped", fields);
};

/**
 * Builds `service.search.backend`: the embedded engine in `db` (the service's own SQLite
 * file), or an OpenSearch client for the nodes of `service.search.opensearch.node`
 * (connects lazily). Throws a ConfigError when the configured CA file cannot be used.
 */
export function buildSearchEngine(config: ServiceConfig, db: DatabaseSync): SearchEngine {
  const search = config.service.search;
  const limits = search.query;
  if (search.backend === "opensearch") {
    const { caFile } = search.opensearch;
    return new OpenSearchEngine({
      node: search.opensearch.node,
      username: search.opensearch.username,
      password: search.opensearch.password,
      caCertificates: caFile
        ? readCaCertificates(caFile, "service.search.opensearch.caFile")
        : undefined,
      limits,
      warn: logClampWarning,
      rawSearchTimeoutMs: search.dsl.timeoutMs,
    });
  }
  return new EmbeddedSearchEngine(db, { limits, warn: logClampWarning });
}

/**
 * The index of a collection: `<indexPrefix><collection.index>` on either engine, so that
 * several services (or test runs) can share one OpenSearch cluster.
 */
export function collectionIndexRef(
  config: ServiceConfig,
  collection: CollectionConfig,
): CollectionIndexRef {
  const fields = fieldMappings(collection.fields);
  return {
    collection: collection.uri,
    indexName: `${config.service.search.opensearch.indexPrefix}${collection.index}`,
    // The collection's explicit mappings override what its fields imply.
    mappings: Object.keys(fields).length === 0 ? collection.mappings : {
      ...collection.mappings,
      properties: {
        ...fields,
        ...(collection.mappings?.properties as Record<string, unknown> | undefined),
      },
    },
  };
}
