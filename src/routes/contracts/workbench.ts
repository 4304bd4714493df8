/**
 * Contracts of the workbench (docs/api.md, Workbench): its HTML pages, the files they load,
 * and the old query page's address. Pages and files hold no data, so they are open even with
 * tokens configured; what they show comes from the JSON API, called with the user's token.
 */
import { z } from "zod";
import { defineContract, type RouteContract } from "../../http/route_contract.ts";
import { NO_PARAMETERS } from "./shared.ts";
import type { PAGES } from "../../ui/pages.ts";

const TAGS = ["Workbench"];

/** A page: the same HTML shell every time; it reads its own query string in the browser. */
function page(path: string, operationId: string, summary: string): RouteContract {
  return defineContract({
    method: "GET",
    path,
    operationId,
    summary,
    description: "An HTML page of the workbench. Its parameters are read by the page's script, " +
      "not by the service.",
    tags: TAGS,
    access: "open",
    query: NO_PARAMETERS,
    responses: { 200: { description: "The page.", content: ["text/html; charset=UTF-8"] } },
    problems: {},
  });
}

/** Every page, by the name of its script (src/ui/static/page-<name>.js). */
export const WORKBENCH_PAGES = {
  home: page("/", "workbenchHome", "Workspaces, collections, index state and backlog"),
  collection: page("/ui/collection", "workbenchCollection", "A collection's items, paged"),
  item: page("/ui/item", "workbenchItem", "An item's graph, downloads and indexed document"),
  search: page("/ui/search", "workbenchSearch", "Search a collection"),
  sparql: page("/ui/sparql", "workbenchSparql", "Query the SPARQL endpoints (YASGUI)"),
  jobs: page("/ui/jobs", "workbenchJobs", "Indexing jobs: start one, list them"),
  job: page("/ui/job", "workbenchJob", "One indexing job's progress and errors"),
  tools: page("/ui/tools", "workbenchTools", "SHACL generation and the settings dump"),
  api: page("/ui/api", "workbenchApi", "The API reference (Swagger UI on /openapi.json)"),
} as const satisfies Record<keyof typeof PAGES, RouteContract>;

/** `GET /ui/assets/{name}`: a script, style sheet or image a page loads. */
export const workbenchAsset = defineContract({
  method: "GET",
  path: "/ui/assets/{name}",
  operationId: "workbenchAsset",
  summary: "A file the workbench pages load",
  description: "Embedded in the service (and so in the compiled executable): nothing is " +
    "loaded from another host.",
  tags: TAGS,
  access: "open",
  query: NO_PARAMETERS,
  pathParams: z.object({ name: z.string().meta({ description: "The file's name." }) }),
  responses: {
    200: { description: "The file, with `ETag`.", content: ["*/*"] },
    304: { description: "`If-None-Match` holds the file's `ETag`." },
  },
  problems: { 404: "No such file (`asset-not-found`)." },
});

/** `GET /admin/sparqlui`: where the query page was; it moved to `/ui/sparql`. */
export const sparqlQueryPage = defineContract({
  method: "GET",
  path: "/admin/sparqlui",
  operationId: "sparqlQueryPage",
  summary: "The old address of the SPARQL query page",
  description: "Redirects to `/ui/sparql`.",
  tags: TAGS,
  access: "open",
  query: NO_PARAMETERS,
  responses: { 302: { description: "`Location: /ui/sparql`." } },
  problems: {},
});

/** Every workbench contract. */
export const WORKBENCH_CONTRACTS: readonly RouteContract[] = [
  ...Object.values(WORKBENCH_PAGES),
  workbenchAsset,
  sparqlQueryPage,
];
