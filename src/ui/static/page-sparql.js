/**
 * `/ui/sparql`: YASGUI on this service's SPARQL 1.1 Protocol endpoints (`/sparql` and, for
 * admins, `/sparql/{id}` of every configured endpoint), with the bearer token on every
 * query. Completion uses YASGUI's bundled prefixes and the query's variables only (its
 * class and property completers would ask a public service). Tabs and their queries are
 * kept by YASGUI in localStorage; the run history and the CSV/TSV/JSON downloads are here.
 * Answers show a page at a time (`sparql-table.js`), so a 10,000-row answer does not
 * freeze the tab.
 */
import { installPagedTable } from "./sparql-table.js";
import { api, authHeaders, download, el, isAdmin, show } from "./workbench.js";

const HISTORY_KEY = "rdf-content-service.sparql-history";
const HISTORY_LENGTH = 25;
const FORMATS = {
  csv: ["text/csv", "csv"],
  tsv: ["text/tab-separated-values", "tsv"],
  json: ["application/sparql-results+json", "json"],
};
const SAMPLE_QUERY = `PREFIX dct: <http://purl.org/dc/terms/>

SELECT ?item ?title WHERE {
  ?item dct:title ?title .
}
LIMIT 25`;

/**
 * The endpoints: every configured one for an admin, the store for everyone. Absolute URLs
 * built from this page's origin: YASGUI's error panel and GET requests read the endpoint
 * with `new URL(…)`, which throws on a path.
 */
async function endpoints() {
  const store = [{ name: "Store", url: absolute("/sparql") }];
  if (!await isAdmin()) return store;
  const response = await api("/api/admin/tools/sparqlui/sparql-endpoints");
  if (!response.ok) return store;
  return (await response.json()).map((endpoint) => ({
    name: endpoint.name,
    url: absolute(new URL(endpoint.protocolUrl, location.origin).pathname),
  }));
}

function absolute(path) {
  return new URL(path, location.origin).href;
}

/** A tab kept from before endpoints were absolute (a bare path) gets this origin. */
function absoluteEndpoint(tab) {
  const endpoint = tab?.getEndpoint();
  if (endpoint && endpoint.startsWith("/")) tab.setEndpoint(absolute(endpoint));
}

/** The service's problem+json inside the Error YASGUI throws for a failed query. */
function problemOf(error) {
  try {
    const problem = JSON.parse(error.message);
    if (problem && typeof problem === "object") return problem;
  } catch {
    // Not JSON: the endpoint's own text, or a network error.
  }
  return { detail: error.message || "The query failed without an answer." };
}

/** Rows in a SPARQL JSON results text; undefined for other formats. */
function rowCount(content) {
  try {
    return JSON.parse(content)?.results?.bindings?.length;
  } catch {
    return undefined;
  }
}

/**
 * What YASGUI does not say: the service's error text for a failed query, and that the
 * service cut a result at its row cap (`X-Results-Truncated`).
 */
function showOutcome(response) {
  const problemBox = document.getElementById("query-problem");
  const truncatedBox = document.getElementById("query-truncated");
  problemBox.hidden = true;
  truncatedBox.hidden = true;
  if (response instanceof Error) {
    const problem = problemOf(response);
    problemBox.textContent = [problem.status, problem.title, problem.detail]
      .filter((part) => part !== undefined && part !== "").join(" · ");
    problemBox.hidden = false;
    return problem;
  }
  if (response?.headers?.get?.("X-Results-Truncated") === "true") {
    const rows = rowCount(response.content);
    truncatedBox.textContent = `Only the first ${rows ?? "rows"} result(s) are shown: the ` +
      "service cut the answer at its row cap (service.query.maxRows). " +
      "Narrow the query, or page through it with LIMIT and OFFSET.";
    truncatedBox.hidden = false;
  }
  return undefined;
}

function history() {
  try {
    return JSON.parse(localStorage.getItem(HISTORY_KEY) ?? "[]");
  } catch {
    return [];
  }
}

function remember(query, endpoint) {
  const entries = history().filter((entry) => entry.query !== query);
  entries.unshift({ query, endpoint, at: new Date().toISOString() });
  localStorage.setItem(HISTORY_KEY, JSON.stringify(entries.slice(0, HISTORY_LENGTH)));
}

function showHistory(yasgui) {
  const entries = history();
  show(
    document.getElementById("history"),
    entries.length === 0 ? el("li", {}, "No query run yet.") : entries.map((entry) =>
      el(
        "li",
        {},
        el("button", {
          type: "button",
          title: "Open in the current tab",
          onclick: () => {
            const tab = yasgui.getTab();
            tab.setQuery(entry.query);
            tab.setEndpoint(entry.endpoint);
          },
        }, "Open"),
        " ",
        el("code", {}, entry.query.replace(/\s+/g, " ").slice(0, 160)),
        el("small", {}, ` ${entry.endpoint} · ${new Date(entry.at).toLocaleString()}`),
      )
    ),
  );
}

const Yasgui = globalThis.Yasgui;
// Only completers that need no network: prefixes (bundled list) and variables.
Yasgui.Yasqe.defaults.autocompleters = ["prefixes", "variables"];
Yasgui.Yasqe.defaults.value = SAMPLE_QUERY;
// Large answers: YASR's table without its every-row passes (see sparql-table.js).
installPagedTable(Yasgui.Yasr);

const list = await endpoints();
const yasgui = new Yasgui(document.getElementById("yasgui"), {
  requestConfig: {
    endpoint: list[0].url,
    method: "POST",
    // A function: read on every query, so a token given later is used.
    headers: () => authHeaders(),
  },
  copyEndpointOnNewTab: true,
  populateFromUrl: false,
  persistenceId: "rdf-content-service",
  endpointCatalogueOptions: {
    getData: () => list.map((endpoint) => ({ endpoint: endpoint.url, name: endpoint.name })),
    keys: [],
  },
});
document.getElementById("endpoints-info").append(
  " Endpoints: ",
  ...list.flatMap((endpoint, index) => [
    index > 0 ? ", " : "",
    el("code", {}, endpoint.url),
    ` (${endpoint.name})`,
  ]),
  ".",
);

absoluteEndpoint(yasgui.getTab());
yasgui.on("tabSelect", (_yasgui, id) => absoluteEndpoint(yasgui.getTab(id)));
/** Editors whose answers this page already follows. */
const followed = new WeakSet();

/**
 * Follows a tab's editor: YASGUI's own queryResponse event does not carry the response,
 * its editor's does (the answer, or the Error thrown for a failed query).
 */
function follow(tab) {
  const yasqe = tab.getYasqe();
  if (!yasqe || followed.has(yasqe)) return;
  followed.add(yasqe);
  yasqe.on("queryResponse", async (_yasqe, response) => {
    const problem = showOutcome(response);
    // A 401 inside YASGUI cannot open our dialog; ask here, then the user runs it again.
    if (response?.status === 401 || problem?.status === 401) {
      const probe = await api("/sparql?query=ASK%7B%7D");
      await probe.body?.cancel();
    }
  });
}

yasgui.on("query", (_yasgui, tab) => {
  follow(tab);
  remember(tab.getQuery(), tab.getEndpoint());
  showHistory(yasgui);
});
showHistory(yasgui);

const status = document.getElementById("download-status");
for (const button of document.querySelectorAll("button[data-format]")) {
  button.addEventListener("click", async () => {
    const [accept, extension] = FORMATS[button.dataset.format];
    const tab = yasgui.getTab();
    status.textContent = `Running the query for ${extension.toUpperCase()}…`;
    try {
      const name = await download(tab.getEndpoint(), {
        method: "POST",
        headers: { Accept: accept, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ query: tab.getQuery() }),
      }, `results.${extension}`);
      status.textContent = `Saved ${name}.`;
    } catch (error) {
      status.textContent = error.message;
    }
  });
}
