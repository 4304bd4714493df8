/**
 * `/ui/sparql`: YASGUI on this service's SPARQL 1.1 Protocol endpoints (`/sparql` and, for
 * admins, `/sparql/{id}` of every configured endpoint), with the bearer token on every
 * query. Completion uses YASGUI's bundled prefixes and the query's variables only (its
 * class and property completers would ask a public service). Tabs and their queries are
 * kept by YASGUI in localStorage; the run history and the CSV/TSV/JSON downloads are here.
 */
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
 * The endpoints: every configured one for an admin, the store for everyone. Paths, not
 * URLs: YASGUI keeps each tab's endpoint, and a path stays right if the service moves.
 */
async function endpoints() {
  const store = [{ name: "Store", url: "/sparql" }];
  if (!await isAdmin()) return store;
  const response = await api("/api/admin/tools/sparqlui/sparql-endpoints");
  if (!response.ok) return store;
  return (await response.json()).map((endpoint) => ({
    name: endpoint.name,
    url: new URL(endpoint.protocolUrl, location.origin).pathname,
  }));
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

yasgui.on("query", (_yasgui, tab) => {
  remember(tab.getQuery(), tab.getEndpoint());
  showHistory(yasgui);
});
// A 401 inside YASGUI cannot open our dialog; ask here, then the user runs it again.
yasgui.on("queryResponse", async (_yasgui, _tab, response) => {
  if (response?.status === 401 || response?.response?.status === 401) {
    const probe = await api("/sparql?query=ASK%7B%7D");
    await probe.body?.cancel();
  }
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
