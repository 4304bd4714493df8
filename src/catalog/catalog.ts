/**
 * Workspaces and collections as configured in customer.yml, looked up by URI.
 */
import type { CollectionConfig, WorkspaceConfig } from "../config/schema.ts";
import { NotFound } from "../errors/domain_error.ts";

/** A collection together with the workspace that holds it. */
export interface CollectionEntry {
  collection: CollectionConfig;
  workspace: WorkspaceConfig;
}

/** Read-only lookups over the configured workspaces. */
export class Catalog {
  readonly #workspaces = new Map<string, WorkspaceConfig>();
  readonly #collections = new Map<string, CollectionEntry>();

  constructor(workspaces: WorkspaceConfig[]) {
    for (const workspace of workspaces) {
      this.#workspaces.set(workspace.uri, workspace);
      for (const collection of workspace.collections) {
        this.#collections.set(collection.uri, { collection, workspace });
      }
    }
  }

  /** The workspace, or NotFound `workspace-not-found`. */
  workspace(uri: string): WorkspaceConfig {
    const workspace = this.#workspaces.get(uri);
    if (!workspace) {
      throw new NotFound(
        "workspace-not-found",
        "Workspace not found",
        `No workspace <${uri}> is configured.`,
        [{ path: "workspace", message: "unknown workspace" }],
      );
    }
    return workspace;
  }

  /** The collection and its workspace, or NotFound `collection-not-found`. */
  collection(uri: string): CollectionEntry {
    const entry = this.#collections.get(uri);
    if (!entry) {
      throw new NotFound(
        "collection-not-found",
        "Collection not found",
        `No collection <${uri}> is configured.`,
        [{ path: "collection", message: "unknown collection" }],
      );
    }
    return entry;
  }

  /**
   * Checks that the collection is configured: 404 `collection-not-found` otherwise, as
   * `collection()`. For callers that need the check only (the service they call next does
   * not look the collection up).
   */
  require(uri: string): void {
    this.collection(uri);
  }

  /** Every collection, in configuration order. */
  collections(): CollectionEntry[] {
    return [...this.#collections.values()];
  }

  /** Every workspace, in configuration order. */
  workspaces(): WorkspaceConfig[] {
    return [...this.#workspaces.values()];
  }
}
