/**
 * The workbench's pages: each one's title, static skeleton and script. The skeletons hold
 * the forms and empty regions the scripts (src/ui/static/page-*.js) fill from the JSON API.
 */
import type { PageDefinition } from "./layout.ts";
import { DOWNLOAD_CHOICES, IMPORT_CHOICES, importFileHint, jsonAttribute } from "./format_lists.ts";
import { SEARCH_LANGUAGES } from "../fields/languages.ts";

/** Page definitions by name; the workbench contracts name the same pages (checked there). */
export const PAGES = {
  home: {
    title: "Workbench",
    module: "page-home.js",
    body: `
<section aria-labelledby="workspaces-title">
<h2 id="workspaces-title">Workspaces and collections</h2>
<div id="workspaces" aria-live="polite"><p>Loading…</p></div>
</section>
<section aria-labelledby="service-title">
<h2 id="service-title">Service</h2>
<dl id="readiness" class="pairs"></dl>
<ul class="links">
<li><a href="/health">Health (/health)</a></li>
<li><a href="/ready">Readiness (/ready)</a></li>
<li data-needs-admin><a href="/metrics">Metrics (/metrics)</a></li>
<li><a href="/openapi.json">OpenAPI document (/openapi.json)</a></li>
<li><a href="/ui/api">API reference</a></li>
</ul>
</section>
<section aria-labelledby="recent-title" data-needs-admin>
<h2 id="recent-title">Recent indexing jobs</h2>
<div id="recent-jobs"></div>
<p><a href="/ui/jobs">All jobs and start a job</a></p>
</section>`,
  },
  collection: {
    title: "Collection",
    module: "page-collection.js",
    body: `
<p id="collection-info"></p>
<form id="filter-form" class="inline-form">
<div><label for="q">Filter (full text)</label><input id="q" name="q" type="search"></div>
<div><label for="type">Type (IRI or prefixed name)</label><input id="type" name="type" type="text" inputmode="url"></div>
<button type="submit">Apply</button>
</form>
<p id="summary" role="status"></p>
<div id="items"></div>
<nav id="pager" class="pager" aria-label="Pages"></nav>
<section id="changes-section" aria-labelledby="changes-title">
<h2 id="changes-title">Recent changes</h2>
<p id="changes-state" role="status"></p>
<div id="changes"></div>
</section>
<section id="import-section" aria-labelledby="import-title" data-needs-admin>
<h2 id="import-title">Import items</h2>
<form id="import-form" class="stacked-form">
<div><label for="import-file">RDF file ${importFileHint()}</label><input id="import-file" name="file" type="file" required data-formats="${
      jsonAttribute(IMPORT_CHOICES)
    }"></div>
<div><label for="import-mode">Mode</label><select id="import-mode" name="mode"><option value="create">create: leave existing items</option><option value="upsert">upsert: create or replace</option><option value="replace">replace: existing items only</option></select></div>
<div class="check"><input id="import-by-subject" name="itemsBy" type="checkbox"><label for="import-by-subject">Items by subject: each IRI subject of the file is one item (for dumps without named graphs)</label></div>
<button type="submit">Import</button>
</form>
<div id="import-status" role="status"></div>
</section>
<section aria-labelledby="new-title" data-needs-admin>
<h2 id="new-title">New collection</h2>
<form id="new-collection-form" class="stacked-form">
<div><label for="new-workspace">Workspace</label><select id="new-workspace" name="workspace" required></select></div>
<div><label for="new-uri">Collection URI</label><input id="new-uri" name="uri" type="url" required></div>
<div><label for="new-label">Name</label><input id="new-label" name="label" type="text"></div>
<div><label for="new-index">Search index name (optional)</label><input id="new-index" name="index" type="text" pattern="[a-z0-9][a-z0-9_\-]*"></div>
<button type="submit">Create the collection</button>
</form>
<div id="new-status" role="status"></div>
</section>`,
  },
  item: {
    title: "Item",
    module: "page-item.js",
    body: `
<dl id="item-info" class="pairs"></dl>
<section aria-labelledby="downloads-title">
<h2 id="downloads-title">Downloads</h2>
<div id="downloads" class="buttons" data-formats="${jsonAttribute(DOWNLOAD_CHOICES)}"></div>
<p id="download-status" role="status"></p>
</section>
<section aria-labelledby="graph-title">
<h2 id="graph-title">Graph</h2>
<div id="graph"><p>Loading…</p></div>
</section>
<section id="history-section" aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<details id="history-details">
<summary>Versions: compare, view, restore</summary>
<div id="versions"></div>
<div class="buttons">
<button type="button" id="history-older" hidden>Older versions</button>
<button type="button" id="history-compare" hidden>Compare the chosen versions</button>
</div>
<div id="history-status" role="status"></div>
<div id="version-diff" aria-live="polite"></div>
<div id="version-view"></div>
</details>
</section>
<section aria-labelledby="indexed-title">
<h2 id="indexed-title">Indexed document</h2>
<div id="indexed"></div>
</section>`,
  },
  search: {
    title: "Search",
    module: "page-search.js",
    body: `
<form id="search-form" class="stacked-form">
<div><label for="collection">Collections (Ctrl or Shift for several)</label><select id="collection" name="collection" multiple size="4"></select></div>
<div><label for="workspace">Or a whole workspace</label><select id="workspace" name="workspace"><option value="">None: the collections chosen</option></select></div>
<div><label for="q">Query</label><input id="q" name="q" type="search"></div>
<div><label for="language">Language</label><select id="language" name="language">${languageOptions()}</select></div>
<div><label for="filters">Filters, one <code>field:value</code> a line</label><textarea id="filters" name="filter" rows="2"></textarea></div>
<div><label for="sort">Sort, one <code>field:asc</code> or <code>field:desc</code> a line</label><textarea id="sort" name="sort" rows="1"></textarea></div>
<div><label for="size">Hits a page</label><input id="size" name="size" type="number" min="0" value="10"></div>
<div><label for="from">First hit (offset)</label><input id="from" name="from" type="number" min="0" value="0"></div>
<button type="submit">Search</button>
</form>
<p id="clamped" class="note" role="status" hidden></p>
<p id="summary" role="status"></p>
<section id="facets" aria-labelledby="facets-title" hidden>
<h2 id="facets-title">Types among the hits</h2>
<ul id="type-facet" class="facet"></ul>
</section>
<ol id="hits" class="hits"></ol>
<nav id="pager" class="pager" aria-label="Pages"></nav>`,
  },
  sparql: {
    title: "SPARQL",
    module: "page-sparql.js",
    scripts: ["yasgui.min.js"],
    styles: ["yasgui.min.css"],
    body: `
<p id="endpoints-info">Queries go to this service's SPARQL 1.1 Protocol endpoints (read-only).
Ctrl+Enter runs the query, Ctrl+Space completes prefixes and variables, Esc leaves the
editor (Tab indents inside it).</p>
<p id="query-problem" class="error" role="alert" hidden></p>
<p id="query-truncated" class="note" role="status" hidden></p>
<div id="yasgui"></div>
<section aria-labelledby="download-title">
<h2 id="download-title">Download the results</h2>
<div class="buttons">
<button type="button" data-format="csv">CSV</button>
<button type="button" data-format="tsv">TSV</button>
<button type="button" data-format="json">JSON</button>
</div>
<p id="download-status" role="status"></p>
</section>
<section aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<ol id="history" class="history"></ol>
</section>`,
  },
  jobs: {
    title: "Jobs",
    module: "page-jobs.js",
    body: `
<section aria-labelledby="start-title" data-needs-admin>
<h2 id="start-title">Start a job</h2>
<form id="start-workspace" class="inline-form">
<div><label for="workspace">Workspace</label><select id="workspace" name="workspace" required></select></div>
<div class="check"><input id="workspace-clear" name="clear" type="checkbox"><label for="workspace-clear">Rebuild from nothing</label></div>
<button type="submit">Index the workspace</button>
</form>
<form id="start-collection" class="inline-form">
<div><label for="collection">Collection</label><select id="collection" name="collection" required></select></div>
<div class="check"><input id="collection-clear" name="clear" type="checkbox"><label for="collection-clear">Rebuild from nothing</label></div>
<button type="submit">Index the collection</button>
</form>
<form id="start-items" class="inline-form">
<div><label for="items-collection">Collection of the items</label><select id="items-collection" name="collection" required></select></div>
<div><label for="items">Item URIs, one a line</label><textarea id="items" name="item" rows="2" required></textarea></div>
<button type="submit">Index the items</button>
</form>
<div id="start-status" role="status"></div>
</section>
<section aria-labelledby="jobs-title">
<h2 id="jobs-title">Recent jobs</h2>
<div id="jobs"><p>Loading…</p></div>
</section>
<section aria-labelledby="outbox-title">
<h2 id="outbox-title">Index outbox</h2>
<dl id="outbox" class="pairs"></dl>
</section>
<section aria-labelledby="imports-title">
<h2 id="imports-title">Recent imports</h2>
<p>Start an import from a collection's page.</p>
<div id="imports"><p>Loading…</p></div>
</section>`,
  },
  job: {
    title: "Job",
    module: "page-job.js",
    body: `
<dl id="job-info" class="pairs"></dl>
<div class="progress-row">
<label for="job-progress">Progress</label>
<progress id="job-progress" max="100" value="0"></progress>
<span id="job-percent" role="status" aria-live="polite"></span>
</div>
<dl id="job-counts" class="pairs"></dl>
<section aria-labelledby="errors-title">
<h2 id="errors-title">Errors</h2>
<div id="job-errors"></div>
</section>`,
  },
  tools: {
    title: "Tools",
    module: "page-tools.js",
    body: `
<section aria-labelledby="shacl-title">
<h2 id="shacl-title">Generate SHACL shapes</h2>
<form id="shacl-form" class="stacked-form">
<div><label for="shacl-file">RDF data file (Turtle, N-Triples, RDF/XML, JSON-LD, …)</label><input id="shacl-file" name="file" type="file" required></div>
<div><label for="shacl-namespace">Namespace of the shapes</label><input id="shacl-namespace" name="namespace" type="url" required value="https://data.example.org/shapes/"></div>
<button type="submit">Generate</button>
</form>
<p id="shacl-status" role="status"></p>
<div id="shacl-result" hidden>
<button type="button" id="shacl-download">Download shapes.ttl</button>
<pre id="shacl-preview" class="code" tabindex="0" aria-label="Generated shapes"></pre>
</div>
</section>
<section id="webhooks-section" aria-labelledby="webhooks-title" data-needs-admin>
<h2 id="webhooks-title">Webhooks</h2>
<p>Each collection's webhook endpoints: where delivery stands, and the changes given up on (dead letters), which can be sent again.</p>
<div class="buttons"><button type="button" id="webhooks-refresh">Refresh</button></div>
<p id="webhooks-status" role="status"></p>
<div id="webhook-endpoints"></div>
<div id="webhook-dead-letters"></div>
</section>
<section aria-labelledby="settings-title">
<h2 id="settings-title">Effective settings</h2>
<p>The configuration in force, secrets shown as ******.</p>
<button type="button" id="settings-button">Show the settings</button>
<pre id="settings" class="code" tabindex="0" aria-label="Settings" hidden></pre>
</section>`,
  },
  api: {
    title: "API reference",
    module: "page-api.js",
    scripts: ["swagger-ui-bundle.js"],
    styles: ["swagger-ui.css"],
    body: `
<p>Every route of this service, from <a href="/openapi.json">/openapi.json</a>. "Try it out"
sends requests to this service with your token.</p>
<div id="swagger"></div>`,
  },
} satisfies Record<string, PageDefinition>;

/**
 * The search page's language choices: any (every literal, as written) or one search language
 * (`GET /api/search` `language`: words by their stems in literals tagged with it, and the
 * labels of that language for `sort=label`), named in English.
 */
function languageOptions(): string {
  const names = new Intl.DisplayNames(["en"], { type: "language" });
  return [
    `<option value="">Any: every literal, word for word</option>`,
    ...SEARCH_LANGUAGES.map((code) =>
      `<option value="${code}">${names.of(code)} (${code})</option>`
    ),
  ].join("");
}
