/**
 * Brings a collection's OpenSearch index of an older layout (`mappings.ts` `INDEX_LAYOUT`,
 * kept in the mappings' `_meta`) to the current one: analysers and a field's type cannot
 * change on an open index, layout 3 moves blank nodes to other fields (`physical_fields.ts`),
 * and the node may lack the reindex module, so the service copies the documents itself, each
 * read back as the service built it and written in the current layout, into a new physical
 * index made as a rebuild's is (behind the rebuilding alias, so every instance's writes
 * meanwhile reach it too), and swaps the alias to it as a rebuild commits. Copies are
 * versioned like every write (an older state never replaces a newer one, a delete made
 * meanwhile wins), so writes during the copy are kept.
 *
 * Asked once per alias and process, when the engine ensures the index or first writes to it;
 * a search of an index not yet upgraded answers as before (a nested path is searched where
 * the old index keeps it: `mappings.ts`' resolver).
 */
import type { Client } from "@opensearch-project/opensearch";
import type {
  BulkResult,
  CollectionIndexRef,
  RebuildTarget,
  SearchDocument,
} from "../search/search_engine.ts";
import { INDEX_LAYOUT, OBJECT_SIBLINGS_LAYOUT } from "./mappings.ts";
import { isIndexNotFound } from "./opensearch_errors.ts";
import { logicalDocument } from "./physical_fields.ts";

/** What the upgrade uses of the engine. */
export interface UpgradeSite {
  client: Client;
  /** Documents copied per page (the clamped listing page). */
  pageSize: number;
  begin(index: CollectionIndexRef): Promise<RebuildTarget>;
  upsert(target: RebuildTarget, documents: SearchDocument[]): Promise<BulkResult>;
  commit(target: RebuildTarget): Promise<void>;
  abort(target: RebuildTarget): Promise<void>;
}

/** Upgrades each alias's index at most once per process (concurrent callers share the work). */
export class LayoutUpgrades {
  readonly #site: UpgradeSite;
  readonly #done = new Map<string, Promise<void>>();

  constructor(site: UpgradeSite) {
    this.#site = site;
  }

  /** Resolves when `index` is of the current layout (copied into one if it was not). */
  upgrade(index: CollectionIndexRef): Promise<void> {
    let pending = this.#done.get(index.indexName);
    if (!pending) {
      pending = this.#upgrade(index);
      // A failure is asked again next time (an outage, not a verdict).
      pending.catch(() => this.#done.delete(index.indexName));
      this.#done.set(index.indexName, pending);
    }
    return pending;
  }

  async #upgrade(index: CollectionIndexRef): Promise<void> {
    const older = await this.#olderIndices(index.indexName);
    if (older.size === 0) return;
    const target = await this.#site.begin(index);
    try {
      await this.#copy(older, target);
      await this.#site.commit(target);
    } catch (error) {
      await this.#site.abort(target).catch(() => {});
      throw error;
    }
  }

  /**
   * The physical indices behind `alias` whose mappings' layout is older, with that layout (0:
   * none written); none when absent.
   */
  async #olderIndices(alias: string): Promise<Map<string, number>> {
    let body: Record<string, { mappings?: { _meta?: { layout?: unknown } } }>;
    try {
      body = (await this.#site.client.indices.getMapping({ index: alias })).body as typeof body;
    } catch (error) {
      if (isIndexNotFound(error)) return new Map();
      throw error;
    }
    const older = new Map<string, number>();
    for (const [name, { mappings }] of Object.entries(body)) {
      const layout = mappings?._meta?.layout;
      if (typeof layout !== "number") older.set(name, 0);
      else if (layout < INDEX_LAYOUT) older.set(name, layout);
    }
    return older;
  }

  /** Every document of `from` (index → layout), in URI order, written to `target`. */
  async #copy(from: Map<string, number>, target: RebuildTarget): Promise<void> {
    let after: unknown[] | undefined;
    while (true) {
      const page: Record<string, unknown> = {
        size: this.#site.pageSize,
        query: { match_all: {} },
        sort: [{ uri: "asc" }],
        ...(after ? { search_after: after } : {}),
      };
      const { body } = await this.#site.client.search({ index: [...from.keys()], body: page });
      const hits = body.hits.hits as unknown as {
        _index: string;
        _source: Record<string, unknown>;
        sort: unknown[];
      }[];
      if (hits.length === 0) return;
      // Read back as the service built them (sources of layouts before object siblings are
      // so already) and written in the current layout by the engine's upsert.
      const result = await this.#site.upsert(
        target,
        hits.map((hit) =>
          (from.get(hit._index) ?? INDEX_LAYOUT) < OBJECT_SIBLINGS_LAYOUT
            ? hit._source as SearchDocument
            : logicalDocument(hit._source)
        ),
      );
      // A document the new index refuses would be lost: stop, the old index keeps serving.
      const failed = result.failed;
      if (failed.length > 0) {
        throw new Error(
          `upgrading ${target.ref.indexName}: ${failed.length} documents were not copied ` +
            `(${failed[0].uri}: ${failed[0].message})`,
        );
      }
      if (hits.length < this.#site.pageSize) return;
      after = hits[hits.length - 1].sort;
    }
  }
}
