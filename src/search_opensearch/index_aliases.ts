/**
 * A collection's index as OpenSearch holds it: an alias over one physical index
 * `<alias>-<timestamp>`; readers only ever query the alias. A rebuild creates a new
 * physical index and swaps the alias with one `_aliases` request.
 *
 * Several service instances share the indices, so every fact about them lives in the
 * cluster, not in one instance's memory:
 * - The first physical index of an alias has a fixed name (`<alias>-19700101000000000`):
 *   instances that create it at once collide on the name, and exactly one index (with the
 *   alias, in the same request) results. Writes that arrive while the alias is missing or
 *   being swapped fail as retryable, never as refused.
 * - A rebuild's index carries a second alias, `<alias>.rebuilding`, from its creation on,
 *   so every instance's writes to the collection also go to it, and no instance takes it
 *   for a leftover while its job lives (leftovers are dropped only by the next rebuild,
 *   which runs under the indexing job lock, or by the clean-up of a dead job).
 */
import type { Client } from "@opensearch-project/opensearch";
import type { DomainError } from "../errors/domain_error.ts";
import type { SearchLimits } from "../search/clamp.ts";
import {
  type CollectionIndexRef,
  indexRefOf,
  type IndexTarget,
  invalidIndexNameProblem,
  isPhysicalIndexOf,
  isRebuildTarget,
  isValidIndexName,
  physicalIndexName,
  rebuildNotActiveProblem,
  type RebuildTarget,
} from "../search/search_engine.ts";
import { indexCreationBody } from "./mappings.ts";
import { errorType, isNotFound } from "./opensearch_errors.ts";

/** The suffix of the alias that marks the physical indices being rebuilt. */
const REBUILDING_SUFFIX = ".rebuilding";

/** The alias of the indices being rebuilt behind collection alias `alias`. */
export function rebuildingAlias(alias: string): string {
  return `${alias}${REBUILDING_SUFFIX}`;
}

/** An index a write goes to: by alias (refused if it is gone), or by a physical name. */
export interface WriteTarget {
  name: string;
  alias: boolean;
}

/** The aliases and physical indices of one engine's collections, and its rebuilds. */
export class IndexAliases {
  readonly #client: Client;
  readonly #limits: SearchLimits;
  readonly #problem: (error: unknown) => DomainError;
  /** Aliases known to exist, so that writes do not ask every time. */
  readonly #ensured = new Set<string>();
  readonly #ensuring = new Map<string, Promise<void>>();
  /** Alias → physical indices this process is rebuilding. */
  readonly #rebuilds = new Map<string, Set<string>>();

  /** `problem` turns the client's errors into the ones to answer. */
  constructor(client: Client, limits: SearchLimits, problem: (error: unknown) => DomainError) {
    this.#client = client;
    this.#limits = limits;
    this.#problem = problem;
  }

  /** Creates `<alias>-<timestamp>` with the alias in one request if the alias is missing. */
  ensureIndex(index: CollectionIndexRef): Promise<void> {
    if (this.#ensured.has(index.indexName)) return Promise.resolve();
    let pending = this.#ensuring.get(index.indexName);
    if (!pending) {
      pending = this.#createIfMissing(index).finally(() => this.#ensuring.delete(index.indexName));
      this.#ensuring.set(index.indexName, pending);
    }
    return pending;
  }

  /** Forgets which aliases exist: a write found one gone (another instance swapping it). */
  forgetEnsured(): void {
    this.#ensured.clear();
  }

  /**
   * Creates a new physical index behind the rebuilding alias only; leftovers of older
   * rebuilds go first. Only the one running indexing job may call it (the job lock makes
   * every other rebuild index a leftover of a job that died), except that rebuilds this
   * engine object started itself are kept.
   */
  async beginRebuild(index: CollectionIndexRef): Promise<RebuildTarget> {
    await this.ensureIndex(index);
    try {
      const serving = new Set(await this.aliasIndices(index.indexName));
      const active = this.#rebuilds.get(index.indexName) ?? new Set();
      const existing = (await this.#client.cat.indices({
        index: `${index.indexName}-*`,
        format: "json",
        h: ["index"],
      }))
        .body as { index: string }[];
      const leftovers = existing.map((row) => row.index).filter((name) =>
        isPhysicalIndexOf(index.indexName, name) && !serving.has(name) && !active.has(name)
      );
      if (leftovers.length > 0) await this.#client.indices.delete({ index: leftovers });
      const physicalName = await this.#createPhysical(index, rebuildingAlias(index.indexName));
      this.#rebuilds.set(index.indexName, new Set([...active, physicalName]));
      return { ref: index, physicalName };
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /**
   * A new physical index behind the rebuilding alias, as {@link beginRebuild} makes one, for
   * a layout upgrade (`layout_upgrade.ts`): it runs outside the indexing job lock, so it
   * leaves every other index alone. Committed or aborted as a rebuild is.
   */
  async beginUpgrade(index: CollectionIndexRef): Promise<RebuildTarget> {
    try {
      const physicalName = await this.#createPhysical(index, rebuildingAlias(index.indexName));
      const active = this.#rebuilds.get(index.indexName) ?? new Set();
      this.#rebuilds.set(index.indexName, new Set([...active, physicalName]));
      return { ref: index, physicalName };
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** Refreshes the rebuilt index, swaps the alias in one `_aliases` request, drops the old. */
  async commitRebuild(target: RebuildTarget): Promise<void> {
    const alias = target.ref.indexName;
    if (!this.#rebuilds.get(alias)?.has(target.physicalName)) throw rebuildNotActiveProblem(target);
    try {
      await this.#client.indices.refresh({ index: target.physicalName });
      const previous = await this.aliasIndices(alias);
      const concrete = previous.length === 0 &&
        (await this.#client.indices.exists({ index: alias })).body === true;
      await this.#client.indices.updateAliases({
        body: {
          actions: [
            ...previous.map((index) => ({ remove: { index, alias } })),
            ...(concrete ? [{ remove_index: { index: alias } }] : []),
            { add: { index: target.physicalName, alias } },
            { remove: { index: target.physicalName, alias: rebuildingAlias(alias) } },
          ],
        },
      });
      this.#rebuilds.get(alias)?.delete(target.physicalName);
      this.#ensured.add(alias);
      if (previous.length > 0) await this.#client.indices.delete({ index: previous });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** Deletes the rebuilt index; the alias never pointed at it. */
  async abortRebuild(target: RebuildTarget): Promise<void> {
    const alias = target.ref.indexName;
    let live = false;
    try {
      live = (await this.aliasIndices(alias)).includes(target.physicalName);
    } catch {
      // Unreachable: the check cannot be made, but the abort must still stop dual writes.
    }
    if (live) throw rebuildNotActiveProblem(target);
    // Forget the rebuild first, so later writes stop going to it even if the delete fails
    // (the leftover index then only takes disk space until an operator removes it).
    this.#rebuilds.get(alias)?.delete(target.physicalName);
    try {
      await this.#client.indices.delete({ index: target.physicalName, ignore_unavailable: true });
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /** The alias (which must exist) and the physical indices being rebuilt behind it. */
  async writeTargets(target: IndexTarget, findRebuilds = false): Promise<WriteTarget[]> {
    if (isRebuildTarget(target)) {
      if (!this.#rebuilds.get(target.ref.indexName)?.has(target.physicalName)) {
        throw rebuildNotActiveProblem(target);
      }
      return [{ name: target.physicalName, alias: false }];
    }
    await this.ensureIndex(target);
    const alias = indexRefOf(target).indexName;
    const rebuilding = (this.#rebuilds.get(alias)?.size ?? 0) > 0 ||
      (findRebuilds && (await this.aliasIndices(rebuildingAlias(alias))).length > 0);
    // A rebuild is written to through its alias, never by its physical name: a rebuild
    // index dropped meanwhile (aborted, or a dead job's cleaned up) then answers 404 instead
    // of being created again empty by OpenSearch's automatic index creation.
    return [
      { name: target.indexName, alias: true },
      ...(rebuilding ? [{ name: rebuildingAlias(alias), alias: true }] : []),
    ];
  }

  /** The physical indices behind `alias`; none when it does not exist. */
  async aliasIndices(alias: string): Promise<string[]> {
    try {
      return Object.keys((await this.#client.indices.getAlias({ name: alias })).body);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  async #createIfMissing(index: CollectionIndexRef): Promise<void> {
    if (!isValidIndexName(index.indexName)) throw invalidIndexNameProblem(index.indexName);
    try {
      const exists =
        (await this.#client.indices.existsAlias({ name: index.indexName })).body === true ||
        (await this.#client.indices.exists({ index: index.indexName })).body === true;
      if (!exists) await this.#createFirst(index);
      this.#ensured.add(index.indexName);
    } catch (error) {
      throw this.#problem(error);
    }
  }

  /**
   * The alias's first physical index, under its fixed name: when several instances create
   * it at once, one request wins and the others find it taken, with the alias already on it
   * (created in the same request). An index of that name without the alias (the alias was
   * removed by hand) gets the alias back.
   */
  async #createFirst(index: CollectionIndexRef): Promise<void> {
    const name = physicalIndexName(index.indexName, 0);
    try {
      await this.#client.indices.create({
        index: name,
        body: {
          ...indexCreationBody(this.#limits, index.mappings),
          aliases: { [index.indexName]: {} },
        },
      });
      return;
    } catch (error) {
      if (errorType(error) !== "resource_already_exists_exception") throw error;
    }
    if ((await this.#client.indices.existsAlias({ name: index.indexName })).body === true) return;
    await this.#client.indices.updateAliases({
      body: { actions: [{ add: { index: name, alias: index.indexName } }] },
    });
  }

  /** A new physical index with alias `alias`; a taken name moves on a millisecond. */
  async #createPhysical(index: CollectionIndexRef, alias: string): Promise<string> {
    const body = {
      ...indexCreationBody(this.#limits, index.mappings),
      aliases: { [alias]: {} },
    };
    let now = Date.now();
    while (true) {
      const name = physicalIndexName(index.indexName, now++);
      try {
        await this.#client.indices.create({ index: name, body });
        return name;
      } catch (error) {
        if (errorType(error) !== "resource_already_exists_exception") throw error;
      }
    }
  }
}
