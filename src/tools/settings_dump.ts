/**
 * The effective settings as YAML, for the admin tool that shows them, with every secret
 * replaced by the mask (see `secret_masking.ts` for what counts as a secret). With the
 * catalog, `workspaces` lists what the service serves now: customer.yml's workspaces and
 * collections and those made through the admin API, each with its `source`.
 */
import { stringify } from "yaml";
import type { ServiceConfig } from "../config/schema.ts";
import { maskSecrets } from "../config/secret_masking.ts";
import { type Catalog, collectionSettings } from "../catalog/catalog.ts";

/** The configuration as YAML, secrets masked. */
export function dumpSettings(config: ServiceConfig, catalog?: Catalog): string {
  const effective = catalog ? { ...config, workspaces: catalogWorkspaces(catalog) } : config;
  return stringify(maskSecrets(effective), { lineWidth: 0 });
}

function catalogWorkspaces(catalog: Catalog) {
  return catalog.workspaceEntries().map(({ workspace, source }) => ({
    source,
    ...workspace,
    collections: workspace.collections.map((collection) => {
      const entry = catalog.collection(collection.uri);
      return { source: entry.source ?? "config", ...collectionSettings(entry) };
    }),
  }));
}
