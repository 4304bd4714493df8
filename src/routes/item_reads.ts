/**
 * What a read of an item answers, for `GET /api/item` and the downloads alike: the current
 * item, one version of its history (`version=V`), or, where the route is a Memento TimeGate,
 * the version current at `Accept-Datetime` (`memento.ts`). Each answer's ETag is the hash of
 * the graph it sends.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import type { RdfFormat } from "../rdf/formats.ts";
import type { ItemRecord } from "../store/triple_store.ts";
import type { VersionRead } from "../items/item_versions.ts";
import { formatEtag, notModified } from "../http/etag.ts";
import { collectionPrefixes, itemRdfResponse } from "./rdf_response.ts";
import { acceptDatetime, mementoHeaders, mementoPath, originalLinks } from "./memento.ts";
import { DomainError } from "../errors/domain_error.ts";

/** Which item, and which of its versions, a read asks for. */
export interface ItemReadRequest {
  collection: string;
  item: string;
  version?: number;
  /** Whether `Accept-Datetime` is honoured (the route is the item's TimeGate). */
  timeGate: boolean;
}

/** The response of an item read in `format`; `headers` gives the route's own headers. */
export async function itemReadResponse(
  c: Context<AppEnv>,
  deps: AppDeps,
  request: ItemReadRequest,
  format: RdfFormat,
  headers: (record: ItemRecord) => Record<string, string>,
): Promise<Response> {
  const { collection, item } = request;
  const prefixes = collectionPrefixes(deps, collection);
  const datetime = request.timeGate ? c.req.header("accept-datetime") : undefined;
  if (request.version !== undefined || datetime !== undefined) {
    const chosen = request.version !== undefined
      ? await deps.itemVersions.read(collection, item, positiveVersion(request.version))
      : await deps.itemVersions.at(collection, item, acceptDatetime(datetime!));
    const extra: Record<string, string> = mementoHeaders(chosen.version);
    if (request.version === undefined) {
      // The TimeGate's answer (RFC 7089 §4.1.2): which memento it is, and that it varies.
      extra["Content-Location"] = mementoPath(collection, item, chosen.version.version);
      extra.Vary = "Accept, Accept-Datetime";
    }
    return versionResponse(c, chosen, format, headers, extra, prefixes);
  }
  // A 304 needs only the record. A body comes with the record of its own version, which
  // may be newer than the one just looked up: its hash is the ETag.
  const known = await deps.items.record(collection, item);
  const extra: Record<string, string> = request.timeGate
    ? { Link: originalLinks(collection, item), Vary: "Accept, Accept-Datetime" }
    : {};
  return notModified(c, formatEtag(known.hash), extra) ??
    await itemRdfResponse(
      () => deps.items.read(known),
      format,
      (record) => ({ ...headers(record), ...extra }),
      prefixes,
    );
}

function versionResponse(
  c: Context<AppEnv>,
  chosen: VersionRead,
  format: RdfFormat,
  headers: (record: ItemRecord) => Record<string, string>,
  extra: Record<string, string>,
  prefixes: Record<string, string>,
): Promise<Response> | Response {
  const { record } = chosen.read;
  return notModified(c, formatEtag(record.hash), extra) ??
    itemRdfResponse(
      () => Promise.resolve(chosen.read),
      format,
      (record) => ({ ...headers(record), ...extra }),
      prefixes,
    );
}

/** Versions count from 1: `version=0` names none. */
function positiveVersion(version: number): number {
  if (version >= 1) return version;
  throw new DomainError("invalid-parameter", {
    detail: "The parameter 'version' counts from 1; got 0.",
    errors: [{ path: "version", message: "must be at least 1" }],
  });
}
