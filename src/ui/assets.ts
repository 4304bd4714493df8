/**
 * The files the workbench pages load, embedded in the module graph with import attributes
 * (`deno.json` enables `raw-imports`): the service serves them from memory, and
 * `deno compile` puts them in the executable with the code, so no page needs a CDN or a
 * file beside the binary. Third-party files come from their npm packages as published:
 * YASGUI (`@zazuko/yasgui`, MIT) and Swagger UI (`swagger-ui-dist`, Apache-2.0).
 */
import yasguiScript from "@zazuko/yasgui/build/yasgui.min.js" with { type: "bytes" };
import yasguiStyle from "@zazuko/yasgui/build/yasgui.min.css" with { type: "bytes" };
import swaggerScript from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "bytes" };
import swaggerStyle from "swagger-ui-dist/swagger-ui.css" with { type: "bytes" };
import swaggerLicense from "swagger-ui-dist/LICENSE" with { type: "bytes" };
import swaggerNotice from "swagger-ui-dist/NOTICE" with { type: "bytes" };
import swaggerBundled from "swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt" with {
  type: "bytes",
};
import licenses from "./static/licenses.txt" with { type: "bytes" };
import workbenchStyle from "./static/workbench.css" with { type: "bytes" };
import workbenchScript from "./static/workbench.js" with { type: "bytes" };
import turtleScript from "./static/turtle.js" with { type: "bytes" };
import homePage from "./static/page-home.js" with { type: "bytes" };
import collectionPage from "./static/page-collection.js" with { type: "bytes" };
import collectionAdmin from "./static/collection-admin.js" with { type: "bytes" };
import collectionChanges from "./static/collection-changes.js" with { type: "bytes" };
import eventStream from "./static/event-stream.js" with { type: "bytes" };
import eventStreamParser from "./static/event-stream-parser.js" with { type: "bytes" };
import itemPage from "./static/page-item.js" with { type: "bytes" };
import itemHistory from "./static/item-history.js" with { type: "bytes" };
import itemHistoryApi from "./static/item-history-api.js" with { type: "bytes" };
import versionDiff from "./static/version-diff.js" with { type: "bytes" };
import ntriples from "./static/ntriples.js" with { type: "bytes" };
import prefixes from "./static/prefixes.js" with { type: "bytes" };
import searchPage from "./static/page-search.js" with { type: "bytes" };
import sparqlPage from "./static/page-sparql.js" with { type: "bytes" };
import sparqlTable from "./static/sparql-table.js" with { type: "bytes" };
import jobsPage from "./static/page-jobs.js" with { type: "bytes" };
import jobPage from "./static/page-job.js" with { type: "bytes" };
import toolsPage from "./static/page-tools.js" with { type: "bytes" };
import toolsWebhooks from "./static/tools-webhooks.js" with { type: "bytes" };
import webhookColumns from "./static/webhook-columns.js" with { type: "bytes" };
import apiPage from "./static/page-api.js" with { type: "bytes" };

/** One embedded file. */
export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** A strong ETag: the SHA-256 of the body. */
  etag: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const TEXT = "text/plain; charset=utf-8";

/** Name → body and media type; the name is what `/ui/assets/{name}` takes. */
const FILES: Record<string, [Uint8Array, string]> = {
  "yasgui.min.js": [yasguiScript, JS],
  "yasgui.min.css": [yasguiStyle, CSS],
  "swagger-ui-bundle.js": [swaggerScript, JS],
  "swagger-ui.css": [swaggerStyle, CSS],
  // Licences travel with the files: the bundle's first line points at its LICENSE.txt.
  "swagger-ui-LICENSE.txt": [swaggerLicense, TEXT],
  "swagger-ui-NOTICE.txt": [swaggerNotice, TEXT],
  "swagger-ui-bundle.js.LICENSE.txt": [swaggerBundled, TEXT],
  "licenses.txt": [licenses, TEXT],
  "workbench.css": [workbenchStyle, CSS],
  "workbench.js": [workbenchScript, JS],
  "turtle.js": [turtleScript, JS],
  "page-home.js": [homePage, JS],
  "page-collection.js": [collectionPage, JS],
  "collection-admin.js": [collectionAdmin, JS],
  "collection-changes.js": [collectionChanges, JS],
  "event-stream.js": [eventStream, JS],
  "event-stream-parser.js": [eventStreamParser, JS],
  "page-item.js": [itemPage, JS],
  "item-history.js": [itemHistory, JS],
  "item-history-api.js": [itemHistoryApi, JS],
  "version-diff.js": [versionDiff, JS],
  "ntriples.js": [ntriples, JS],
  "prefixes.js": [prefixes, JS],
  "page-search.js": [searchPage, JS],
  "page-sparql.js": [sparqlPage, JS],
  "sparql-table.js": [sparqlTable, JS],
  "page-jobs.js": [jobsPage, JS],
  "page-job.js": [jobPage, JS],
  "page-tools.js": [toolsPage, JS],
  "tools-webhooks.js": [toolsWebhooks, JS],
  "webhook-columns.js": [webhookColumns, JS],
  "page-api.js": [apiPage, JS],
};

/** The names of every embedded file. */
export const ASSET_NAMES: readonly string[] = Object.keys(FILES);

const cache = new Map<string, Promise<Asset>>();

/** The embedded file of this name (its ETag computed once), or undefined. */
export function findAsset(name: string): Promise<Asset> | undefined {
  if (!Object.hasOwn(FILES, name)) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    const [bytes, contentType] = FILES[name];
    const body = new Uint8Array(bytes);
    asset = crypto.subtle.digest("SHA-256", body).then((digest) => ({
      body,
      contentType,
      etag: `"${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`,
    }));
    cache.set(name, asset);
  }
  return asset;
}
