/**
 * `/api/item/history` and `/api/item/restore` (docs/api.md, Item history); versions of an
 * item are read through `GET /api/item?version=V` (item_reads.ts). The rules live in
 * `src/items/item_versions.ts`; the collection rights are the contracts' (read for the
 * history, write for a restore), as for the item itself.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { formatEtag, parseEtagCondition } from "../http/etag.ts";
import { author } from "../http/auth.ts";
import { negotiateMediaType } from "../rdf/formats.ts";
import { DomainError } from "../errors/domain_error.ts";
import { MAX_VERSIONS_PER_PAGE } from "../items/item_versions.ts";
import { historyPath } from "../items/deleted_items.ts";
import { itemDiff, itemHistory, restoreItem } from "./contracts/item_history.ts";
import { RDF_PATCH, rdfPatchText } from "../rdf/writers/rdf_patch.ts";
import { encodeTerm } from "../rdf/writers/ntriples.ts";
import type { Quad } from "n3";
import { LINK_FORMAT, timeMap } from "./memento.ts";

const JSON_TYPE = "application/json";

/** The history routes. */
export function itemHistoryRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  handle(app, itemHistory, async (c) => {
    const { collection, item, limit, before } = readQuery(c, itemHistory);
    const type = negotiateMediaType(
      c.req.header("accept"),
      [[JSON_TYPE, [JSON_TYPE]], [LINK_FORMAT, [LINK_FORMAT]]] as const,
      JSON_TYPE,
    );
    if (!type) {
      throw new DomainError("not-acceptable", {
        detail: `The history is available as ${JSON_TYPE} or ${LINK_FORMAT} (a Memento TimeMap).`,
      });
    }
    inRange("limit", limit, 1, MAX_VERSIONS_PER_PAGE);
    if (before !== undefined) inRange("before", before, 1, Number.MAX_SAFE_INTEGER);
    // One more than asked: whether an older page follows.
    const listed = await deps.itemVersions.list(collection, item, { limit: limit + 1, before });
    const versions = listed.slice(0, limit);
    const self = pagePath(collection, item, limit, before);
    const next = listed.length > limit
      ? pagePath(collection, item, limit, versions[versions.length - 1].version)
      : undefined;
    if (next) c.header("Link", `<${next}>; rel="next"; type="${type}"`);
    if (type === LINK_FORMAT) {
      const body = timeMap(collection, item, versions, {
        newest: before === undefined,
        oldest: next === undefined,
        next,
        self,
      });
      return c.body(body, 200, { "Content-Type": LINK_FORMAT, Vary: "Accept" });
    }
    c.header("Vary", "Accept");
    return c.json({
      collection,
      item,
      versions: versions.map(({ collection: _c, uri: _u, ...version }) => version),
      next: next ?? null,
    });
  });

  handle(app, itemDiff, async (c) => {
    const { collection, item, from, to } = readQuery(c, itemDiff);
    const type = negotiateMediaType(
      c.req.header("accept"),
      [[JSON_TYPE, [JSON_TYPE]], [RDF_PATCH, [RDF_PATCH]]] as const,
      JSON_TYPE,
    );
    if (!type) {
      throw new DomainError("not-acceptable", {
        detail: `The change is available as ${JSON_TYPE} or ${RDF_PATCH}.`,
      });
    }
    inRange("from", from, 1, Number.MAX_SAFE_INTEGER);
    inRange("to", to, 1, Number.MAX_SAFE_INTEGER);
    const change = await deps.itemVersions.diff(collection, item, from, to);
    if (type === RDF_PATCH) {
      return c.body(rdfPatchText(change), 200, { "Content-Type": RDF_PATCH, Vary: "Accept" });
    }
    c.header("Vary", "Accept");
    return c.json({
      collection,
      item,
      from,
      to,
      removed: change.removed.map(statement),
      added: change.added.map(statement),
    });
  });

  handle(app, restoreItem, async (c) => {
    const { collection, item, version } = readQuery(c, restoreItem);
    inRange("version", version, 1, Number.MAX_SAFE_INTEGER);
    const ifMatch = parseEtagCondition(c.req.header("if-match"));
    const ifAbsent = restoreOnlyIfAbsent(c.req.header("if-none-match"));
    const record = await deps.rdfWork.writing(() =>
      deps.itemVersions.restore(collection, item, version, { ifMatch, ifAbsent }, author(c))
    );
    return c.body(null, 204, { ETag: formatEtag(record.hash) });
  });

  return app;
}

/**
 * `If-None-Match: *` on a restore: only if the item does not exist now (an undelete). An
 * ETag there would mean "unless it is this version", which a restore has no use for.
 */
function restoreOnlyIfAbsent(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  throw new DomainError("invalid-parameter", {
    detail: "A restore takes If-None-Match: * (restore only a deleted item), nothing else.",
    errors: [{ path: "If-None-Match", message: `expected *, got ${header.slice(0, 100)}` }],
  });
}

/** A triple as one N-Triples statement. */
function statement(quad: Quad): string {
  return `${encodeTerm(quad.subject)} ${encodeTerm(quad.predicate)} ${encodeTerm(quad.object)} .`;
}

/** A history page's URL. */
function pagePath(collection: string, item: string, limit: number, before?: number): string {
  const page = before === undefined ? "" : `&before=${before}`;
  return `${historyPath(collection, item)}&limit=${limit}${page}`;
}

/** 400 naming the parameter unless `min` ≤ `value` ≤ `max`: nothing is clamped silently. */
function inRange(name: string, value: number, min: number, max: number): void {
  if (value >= min && value <= max) return;
  throw new DomainError("invalid-parameter", {
    detail: `The parameter '${name}' must be from ${min} to ${max}; got ${value}.`,
    errors: [{ path: name, message: `out of range ${min}..${max}` }],
  });
}
