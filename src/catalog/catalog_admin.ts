/**
 * Creating, changing and removing workspaces and collections at run time (the admin API).
 * Bodies take customer.yml's shape and go through the same schema; what the schema cannot
 * check (initialise rules compile, shapes parse) the caller's `check` does. Only what was
 * made through the API can be changed or removed here: customer.yml's part is the file's.
 * After each write the copy in memory is read again by a read that starts after it
 * (`refreshSince`): joining a poll already in flight could keep the copy from before it.
 */
import type { z } from "zod";
import {
  type CollectionConfig,
  collectionSchema,
  type WorkspaceConfig,
  workspaceSchema,
} from "../config/schema.ts";
import { DomainError, type FieldError } from "../errors/domain_error.ts";
import { restoreWebhookSecrets } from "../config/webhook_setting.ts";
import type { Catalog, CollectionEntry } from "./catalog.ts";
import { type CatalogStore, newRevision } from "./catalog_store.ts";

/** What the catalog cannot check itself, given by the services that use the settings. */
export interface CollectionCheck {
  /** Throws `invalid-settings` naming the field when the collection's settings cannot work. */
  (collection: CollectionConfig, workspace: WorkspaceConfig): void | Promise<void>;
}

/** The admin operations over a catalog with a store. */
export class CatalogAdmin {
  constructor(
    private readonly catalog: Catalog,
    private readonly store: CatalogStore,
    private readonly check: CollectionCheck,
    /** Whether the store holds an item of the collection. */
    private readonly hasItems: (collection: string) => Promise<boolean>,
  ) {}

  /** Adds a workspace; 409 `workspace-exists` when its URI is taken. */
  async createWorkspace(body: unknown): Promise<WorkspaceConfig> {
    const settings = withName(objectBody(body));
    if (Array.isArray(settings.collections) && settings.collections.length > 0) {
      throw invalid([{ path: "/collections", message: "create collections one by one" }]);
    }
    delete settings.collections;
    const workspace = parsed(workspaceSchema, settings);
    await this.catalog.refreshSince(performance.now());
    if (this.catalog.knows(workspace.uri)) throw taken("workspace", workspace.uri);
    const { uri, ...stored } = settings;
    const inserted = await this.store.insert({
      kind: "workspace",
      uri: String(uri),
      settings: stored,
      revision: newRevision(),
    });
    if (!inserted) throw taken("workspace", workspace.uri);
    await this.catalog.refreshSince(performance.now());
    return this.catalog.workspace(workspace.uri);
  }

  /** Adds a collection; 409 `collection-exists` when its URI is taken. */
  async createCollection(body: unknown): Promise<CollectionEntry> {
    const { workspace, settings } = collectionBody(body);
    await this.catalog.refreshSince(performance.now());
    const { collection, owner } = await this.#validate(workspace, settings);
    if (this.catalog.knows(collection.uri)) throw taken("collection", collection.uri);
    const { uri: _uri, ...stored } = settings;
    const inserted = await this.store.insert({
      kind: "collection",
      uri: collection.uri,
      workspace: owner.uri,
      settings: stored,
      revision: newRevision(),
    });
    if (!inserted) throw taken("collection", collection.uri);
    await this.catalog.refreshSince(performance.now());
    return this.catalog.collection(collection.uri);
  }

  /**
   * Replaces an API-made collection's settings (its URI stays); 404 when there is none,
   * 409 `collection-from-config` for customer.yml's, 412 when `ifMatch` is stale.
   */
  async replaceCollection(uri: string, body: unknown, ifMatch?: string): Promise<CollectionEntry> {
    await this.catalog.refreshSince(performance.now());
    const current = this.#ownCollection(uri);
    const given = objectBody(body);
    if (given.uri !== undefined && given.uri !== uri) {
      throw invalid([{ path: "/uri", message: "the URI of a collection cannot change" }]);
    }
    // Put back as read (masked), a webhook keeps its secret.
    if (given.webhooks !== undefined) {
      given.webhooks = restoreWebhookSecrets(given.webhooks, current.collection.webhooks);
    }
    // Left out, the workspace and the index (its name and fields) stay as they are: a new
    // default index name would leave every indexed document behind.
    const { workspace, settings } = collectionBody({
      workspace: current.workspace.uri,
      index: current.settings?.index ?? current.collection.index,
      ...given,
      uri,
    });
    const { collection, owner } = await this.#validate(workspace, settings, uri);
    const { uri: _uri, ...stored } = settings;
    const revision = newRevision();
    const outcome = await this.store.replace(
      { kind: "collection", uri: collection.uri, workspace: owner.uri, settings: stored, revision },
      ifMatch,
    );
    if (outcome === "missing") throw collectionNotFound(uri);
    if (outcome === "stale") throw stale(uri);
    await this.catalog.refreshSince(performance.now());
    return this.catalog.collection(uri);
  }

  /** Removes an API-made collection that holds no item; 409 `collection-not-empty` otherwise. */
  async deleteCollection(uri: string, ifMatch?: string): Promise<void> {
    await this.catalog.refreshSince(performance.now());
    const current = this.#ownCollection(uri);
    if (ifMatch !== undefined && ifMatch !== current.revision) throw stale(uri);
    if (await this.hasItems(uri)) {
      throw new DomainError("collection-not-empty", {
        detail: `<${uri}> holds items; delete them first (an export keeps a copy).`,
        errors: [{ path: "collection", message: "not empty" }],
      });
    }
    if (!await this.store.remove(uri)) throw collectionNotFound(uri);
    await this.catalog.refreshSince(performance.now());
  }

  /** The API-made collection of `uri`. */
  #ownCollection(uri: string): CollectionEntry {
    const entry = this.catalog.collection(uri);
    if (entry.source !== "api") {
      throw new DomainError("collection-from-config", {
        detail: `<${uri}> is defined in customer.yml; change it there (and restart), or make a ` +
          "collection through this API.",
        errors: [{ path: "collection", message: "from customer.yml" }],
      });
    }
    return entry;
  }

  /** Parses and checks settings for `workspace`; `self` is the collection being replaced. */
  async #validate(workspace: string, settings: Record<string, unknown>, self?: string) {
    const collection = parsed(collectionSchema, settings);
    let owner: WorkspaceConfig;
    try {
      owner = this.catalog.workspace(workspace);
    } catch {
      throw new DomainError("workspace-not-found", {
        detail: `No workspace <${workspace}>; create it first (POST /api/admin/workspaces).`,
        errors: [{ path: "/workspace", message: "unknown workspace" }],
      });
    }
    const clash = this.catalog.collections().find((entry) =>
      entry.collection.index === collection.index && entry.collection.uri !== self
    );
    if (clash) {
      throw new DomainError("index-in-use", {
        detail: `The index name "${collection.index}" is the index of <${clash.collection.uri}>; ` +
          "give the collection an index of its own.",
        errors: [{ path: "/index", message: "used by another collection" }],
      });
    }
    await this.check(collection, owner);
    return { collection, owner };
  }
}

/** A collection body: `workspace` apart, `label` read as `name`, a default index name. */
function collectionBody(body: unknown): { workspace: string; settings: Record<string, unknown> } {
  const { workspace, ...settings } = withName(objectBody(body));
  if (typeof workspace !== "string" || workspace === "") {
    throw invalid([{ path: "/workspace", message: "required: the workspace's URI" }]);
  }
  if (settings.index === undefined && typeof settings.uri === "string") {
    settings.index = defaultIndexName(settings.uri);
  }
  return { workspace, settings };
}

/** `label` is another name for `name`; without either the URI names it. */
function withName(body: Record<string, unknown>): Record<string, unknown> {
  const { label, ...rest } = body;
  if (rest.name === undefined) rest.name = label ?? rest.uri;
  return rest;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid([{ path: "", message: "a JSON object is expected" }]);
  }
  return { ...body as Record<string, unknown> };
}

/**
 * An index name from the URI: its last segment in the letters an index name may have, and
 * a short hash of the whole URI so that two URIs ending alike do not meet.
 */
export function defaultIndexName(uri: string): string {
  const last = uri.replace(/[/#]+$/, "").split(/[/#:]/).pop() ?? "";
  const slug = last.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
    .slice(0, 40);
  // FNV-1a: a stable, short fingerprint; nothing here needs a cryptographic hash.
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(uri)) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return `${slug || "collection"}-${hash.toString(16).padStart(8, "0")}`;
}

/** Parses with a configuration schema; 400 `invalid-settings` naming each field. */
function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalid(result.error.issues.map((issue) => ({
    path: "/" + issue.path.map(String).join("/"),
    message: issue.message,
  })));
}

function invalid(errors: FieldError[]): DomainError {
  return new DomainError("invalid-settings", {
    detail: `The body is not valid settings: ${
      errors.map((error) => `${error.path || "/"}: ${error.message}`).join("; ")
    }.`,
    errors,
  });
}

function taken(kind: "workspace" | "collection", uri: string): DomainError {
  return new DomainError(kind === "workspace" ? "workspace-exists" : "collection-exists", {
    detail: `A workspace or collection <${uri}> exists already.`,
    errors: [{ path: "/uri", message: "taken" }],
  });
}

function collectionNotFound(uri: string): DomainError {
  return new DomainError("collection-not-found", {
    detail: `No collection <${uri}> is configured.`,
    errors: [{ path: "collection", message: "unknown collection" }],
  });
}

function stale(uri: string): DomainError {
  return new DomainError("precondition-failed", {
    detail: `<${uri}> has changed since the ETag given in If-Match was read; read it again.`,
  });
}
