/**
 * Memento (RFC 7089) for items: the links and headers that make an item's versions the web's
 * own time travel. The item (`GET /api/item`) is the Original Resource and its own TimeGate
 * (RFC 7089 §4.1.2, 200-style negotiation: the answer to `Accept-Datetime` is the memento
 * itself, with `Content-Location` naming it); a version (`version=V`) is a Memento; the
 * history in `application/link-format` is the TimeMap (§5.1.1).
 *
 * Links are root-relative, as the service's `Location` headers are: they resolve against
 * whatever origin the client reached the service by.
 */
import type { ItemVersion } from "../store/item_history.ts";
import { historyPath } from "../items/deleted_items.ts";
import { DomainError } from "../errors/domain_error.ts";

/** The TimeMap's media type (RFC 6690). */
export const LINK_FORMAT = "application/link-format";

/** RFC 7231's IMF-fixdate, the one form `Accept-Datetime` takes (RFC 7089 §2.1.1). */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The item's URL: the Original Resource and its TimeGate. */
export function originalPath(collection: string, uri: string): string {
  return `/api/item?collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`;
}

/** A version's URL: a Memento. */
export function mementoPath(collection: string, uri: string, version: number): string {
  return `${originalPath(collection, uri)}&version=${version}`;
}

/** An instant as an HTTP date (what `Memento-Datetime` and `datetime=` carry). */
export function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

/**
 * The instant an `Accept-Datetime` asks for: the end of the second it names, since an HTTP
 * date has whole seconds and versions have milliseconds; a version's own `Memento-Datetime`
 * sent back so finds that version (or a later one of the same second). A malformed value is
 * `400 invalid-parameter` naming the header (RFC 7089 §4.5.3).
 */
export function acceptDatetime(header: string): Date {
  const value = header.trim();
  const ms = IMF_FIXDATE.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new DomainError("invalid-parameter", {
      detail: `Accept-Datetime must be an HTTP date such as "Tue, 20 Jun 2000 18:02:59 GMT"; ` +
        `got ${JSON.stringify(header.slice(0, 100))}.`,
      errors: [{ path: "Accept-Datetime", message: "not an IMF-fixdate" }],
    });
  }
  return new Date(ms + 999);
}

/** The `Link` of the item itself, when its store keeps history: its TimeGate and TimeMap. */
export function originalLinks(collection: string, uri: string): string {
  return [
    `<${originalPath(collection, uri)}>; rel="original timegate"`,
    `<${historyPath(collection, uri)}>; rel="timemap"; type="${LINK_FORMAT}"`,
  ].join(", ");
}

/** The headers of a Memento: its datetime and its links (§4.1.2 and §5.1.1). */
export function mementoHeaders(version: ItemVersion): Record<string, string> {
  const { collection, uri } = version;
  const datetime = httpDate(version.time);
  return {
    "Memento-Datetime": datetime,
    Link: `${originalLinks(collection, uri)}, <${
      mementoPath(collection, uri, version.version)
    }>; rel="memento"; datetime="${datetime}"`,
  };
}

/**
 * A page of the TimeMap (RFC 7089 §5.1.1): the original, its TimeGate, the map itself and a
 * memento per version of the page that has a graph (a delete has none), newest first.
 * `first memento` and `last memento` mark the ends when the page holds them; `next` links
 * the page of older versions. Written as RFC 6690's grammar has it (no spaces around `;`),
 * one link per line (RFC 7089's own examples break lines after the commas).
 */
export function timeMap(
  collection: string,
  uri: string,
  versions: readonly ItemVersion[],
  pages: { newest: boolean; oldest: boolean; next?: string; self: string },
): string {
  const mementos = versions.filter((version) => version.operation !== "delete");
  const links = [
    `<${originalPath(collection, uri)}>;rel="original"`,
    `<${originalPath(collection, uri)}>;rel="timegate"`,
  ];
  const self = [`<${pages.self}>;rel="self";type="${LINK_FORMAT}"`];
  if (mementos.length > 0) {
    self.push(`from="${httpDate(mementos[mementos.length - 1].time)}"`);
    self.push(`until="${httpDate(mementos[0].time)}"`);
  }
  links.push(self.join(";"));
  mementos.forEach((version, index) => {
    const relations = [
      ...(pages.oldest && index === mementos.length - 1 ? ["first"] : []),
      ...(pages.newest && index === 0 ? ["last"] : []),
      "memento",
    ];
    const rel = relations.join(" ");
    const datetime = httpDate(version.time);
    links.push(
      `<${mementoPath(collection, uri, version.version)}>;rel="${rel}";datetime="${datetime}"`,
    );
  });
  if (pages.next) links.push(`<${pages.next}>;rel="next";type="${LINK_FORMAT}"`);
  return links.join(",\n") + "\n";
}
