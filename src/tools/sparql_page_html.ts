/**
 * The SPARQL query page (`GET /admin/sparqlui`) as one self-contained HTML document: inline
 * CSS and script, no external resources, so it ships inside the compiled binary and works
 * without internet access. The script talks to the tool API with relative URLs, so the page
 * keeps working behind a reverse proxy that mounts the service under a path.
 *
 * The script is written without template literals: the page itself is one.
 */

/** The query every fresh page starts with. */
export const SAMPLE_QUERY = `# The first 25 triples, each with the graph (item) it belongs to.
SELECT ?g ?s ?p ?o
WHERE {
  GRAPH ?g { ?s ?p ?o }
}
LIMIT 25
`;

/**
 * The page, its inline style and script carrying `nonce` so a strict
 * Content-Security-Policy (`script-src 'nonce-…'`) lets exactly them run.
 */
export function sparqlPageHtml(nonce: string): string {
  return String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SPARQL query · rdf-content-service</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">
:root {
  color-scheme: light dark;
  --bg: #f4f6f9; --panel: #ffffff; --text: #1b2230; --muted: #5a6475; --border: #d5dae2;
  --accent: #2350b8; --accent-hover: #1b409a; --accent-text: #ffffff; --focus: #f0a500;
  --row: #f8f9fb; --iri: #1d5aa6; --literal: #236023; --meta: #7446a8; --bnode: #8a5a00;
  --error-bg: #fdeeee; --error-border: #e3a1a3; --error: #9b1c20;
  --notice-bg: #fff6dd; --notice-border: #e8c96b;
  --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12161d; --panel: #1b212b; --text: #e3e7ee; --muted: #9aa4b5; --border: #334052;
    --accent: #5b8def; --accent-hover: #7aa3f5; --accent-text: #0b1020; --row: #202835;
    --iri: #8ab8ff; --literal: #9fd79f; --meta: #c9a2f5; --bnode: #e6b85c;
    --error-bg: #3a1d20; --error-border: #7d3338; --error: #ffb3b6;
    --notice-bg: #3a3115; --notice-border: #7c6420;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
}
header { background: var(--accent); color: var(--accent-text); padding: 0.9rem 1.5rem; }
header h1 { margin: 0; font-size: 1.3rem; font-weight: 600; }
header p { margin: 0.15rem 0 0; opacity: 0.9; font-size: 0.9rem; }
main { max-width: 1280px; margin: 0 auto; padding: 1.25rem 1.5rem 2rem; }
.panel {
  background: var(--panel); border: 1px solid var(--border); border-radius: 8px;
  padding: 1rem 1.25rem; margin-bottom: 1.25rem;
}
h2 { font-size: 1.05rem; margin: 0 0 0.75rem; }
.field { margin-bottom: 0.9rem; }
label { display: block; font-weight: 600; margin-bottom: 0.3rem; }
select, textarea {
  font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--border);
  border-radius: 6px; padding: 0.45rem 0.6rem; width: 100%;
}
select { max-width: 36rem; }
textarea {
  font-family: var(--mono); font-size: 0.9rem; line-height: 1.45; min-height: 12rem;
  resize: vertical; tab-size: 2;
}
select:focus-visible, textarea:focus-visible, button:focus-visible {
  outline: 3px solid var(--focus); outline-offset: 1px;
}
.hint { color: var(--muted); font-size: 0.85rem; margin: 0.3rem 0 0; }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem; }
button {
  font: inherit; font-weight: 600; cursor: pointer; border-radius: 6px;
  padding: 0.45rem 1.1rem; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-text);
}
button:hover { background: var(--accent-hover); }
button.secondary { background: transparent; color: var(--accent); }
button.secondary:hover { background: var(--row); }
button[disabled] { opacity: 0.6; cursor: progress; }
kbd {
  font-family: var(--mono); font-size: 0.8rem; border: 1px solid var(--border);
  border-bottom-width: 2px; border-radius: 4px; padding: 0 0.3rem; background: var(--bg);
}
#status { margin: 0 0 0.75rem; color: var(--muted); }
#status.busy::before {
  content: ""; display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.5em;
  border: 2px solid var(--muted); border-top-color: transparent; border-radius: 50%;
  vertical-align: -0.1em; animation: spin 0.8s linear infinite;
}
@keyframes spin { to { transform: rotate(360deg); } }
.notice {
  background: var(--notice-bg); border: 1px solid var(--notice-border); border-radius: 6px;
  padding: 0.5rem 0.75rem; margin: 0 0 0.75rem;
}
.table-wrap { overflow: auto; max-height: 65vh; border: 1px solid var(--border); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 0.88rem; }
caption { text-align: left; padding: 0.5rem 0.75rem; color: var(--muted); caption-side: top; }
th, td {
  text-align: left; vertical-align: top; padding: 0.35rem 0.75rem;
  border-bottom: 1px solid var(--border);
}
th { position: sticky; top: 0; background: var(--panel); font-family: var(--mono); z-index: 1; }
td { font-family: var(--mono); overflow-wrap: anywhere; min-width: 6rem; }
td.index, th.index { color: var(--muted); min-width: 0; width: 1%; text-align: right; }
tbody tr:nth-child(even) { background: var(--row); }
.iri { color: var(--iri); }
.bnode { color: var(--bnode); }
.literal { color: var(--literal); white-space: pre-wrap; }
.lang, .datatype { color: var(--meta); font-size: 0.85em; margin-left: 0.25em; }
.answer { font-size: 2rem; font-weight: 700; margin: 0.25rem 0; }
.answer.yes { color: var(--literal); }
.answer.no { color: var(--error); }
pre.graph {
  font-family: var(--mono); font-size: 0.85rem; background: var(--bg); margin: 0;
  border: 1px solid var(--border); border-radius: 6px; padding: 0.75rem; overflow: auto;
  max-height: 65vh; white-space: pre-wrap; overflow-wrap: anywhere;
}
.error {
  background: var(--error-bg); border: 1px solid var(--error-border); border-radius: 6px;
  padding: 0.6rem 0.9rem; color: var(--error);
}
.error h3 { margin: 0 0 0.25rem; font-size: 1rem; }
.error p { margin: 0.25rem 0; white-space: pre-wrap; }
.error ul { margin: 0.25rem 0; padding-left: 1.25rem; font-family: var(--mono); font-size: 0.85rem; }
.error .meta { color: var(--muted); font-size: 0.8rem; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap;
}
</style>
</head>
<body>
<header>
  <h1>SPARQL query</h1>
  <p>Read-only queries on the service's store and the configured SPARQL endpoints.</p>
</header>
<main>
  <section class="panel" aria-labelledby="query-heading">
    <h2 id="query-heading" class="visually-hidden">Query editor</h2>
    <form id="query-form">
      <div class="field">
        <label for="endpoint">Endpoint</label>
        <select id="endpoint" name="endpoint" aria-describedby="endpoint-info">
          <option value="">Loading endpoints…</option>
        </select>
        <p id="endpoint-info" class="hint"></p>
      </div>
      <div class="field">
        <label for="query">Query</label>
        <textarea id="query" name="query" rows="12" spellcheck="false" autocapitalize="off"
          autocomplete="off" aria-describedby="query-hint"></textarea>
      </div>
      <div class="actions">
        <button type="submit" id="run">Run query</button>
        <button type="button" id="sample" class="secondary">Sample query</button>
        <span id="query-hint" class="hint">
          <kbd>Ctrl</kbd> + <kbd>Enter</kbd> in the query runs it. Updates are refused.
        </span>
      </div>
    </form>
  </section>
  <section class="panel" aria-labelledby="results-heading">
    <h2 id="results-heading">Results</h2>
    <p id="status" role="status" aria-live="polite">No query run yet.</p>
    <div id="results"></div>
  </section>
</main>
<script nonce="${nonce}">
"use strict";
(function () {
  var API = "../api/admin/tools/sparqlui/";
  var SAMPLE = ${JSON.stringify(SAMPLE_QUERY)};
  var STORED_QUERY = "rcs.sparqlui.query";
  var STORED_ENDPOINT = "rcs.sparqlui.endpoint";
  var PREFIXES = [
    ["xsd:", "http://www.w3.org/2001/XMLSchema#"],
    ["rdf:", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"]
  ];

  var form = document.getElementById("query-form");
  var endpointSelect = document.getElementById("endpoint");
  var endpointInfo = document.getElementById("endpoint-info");
  var queryArea = document.getElementById("query");
  var runButton = document.getElementById("run");
  var sampleButton = document.getElementById("sample");
  var statusLine = document.getElementById("status");
  var results = document.getElementById("results");
  var endpoints = [];
  var running = false;

  function remembered(key) {
    try { return localStorage.getItem(key); } catch (_) { return null; }
  }
  function remember(key, value) {
    try { localStorage.setItem(key, value); } catch (_) { /* private mode: no memory */ }
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function plural(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  function formatElapsed(ms) {
    return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s";
  }

  function setStatus(text, busy) {
    statusLine.textContent = text;
    statusLine.className = busy ? "busy" : "";
  }

  function showEndpointInfo() {
    var chosen = endpoints.find(function (e) { return e.id === endpointSelect.value; });
    if (!chosen) { endpointInfo.textContent = ""; return; }
    var parts = [
      "id " + chosen.id,
      chosen.kind === "embedded" ? "Embedded store" : "Remote endpoint " + chosen.url,
      // Where standard SPARQL clients reach the same endpoint through this service.
      "SPARQL Protocol URL " + new URL(chosen.protocolUrl, location.href).href,
      chosen.readOnly ? "read-only" : "writable (this tool only reads)",
      chosen.collections.length === 0
        ? "no configured collections"
        : plural(chosen.collections.length, "collection", "collections") + ": " +
          chosen.collections.join(", ")
    ];
    endpointInfo.textContent = parts.join(" · ");
  }

  async function loadEndpoints() {
    try {
      var response = await fetch(API + "sparql-endpoints", { headers: { Accept: "application/json" } });
      var text = await response.text();
      if (!response.ok) {
        showProblem(response, text, undefined);
        endpointSelect.replaceChildren(el("option", "", "No endpoints available"));
        return;
      }
      endpoints = JSON.parse(text);
    } catch (error) {
      showFailure("The endpoint list could not be loaded", error);
      endpointSelect.replaceChildren(el("option", "", "No endpoints available"));
      return;
    }
    endpointSelect.replaceChildren.apply(endpointSelect, endpoints.map(function (endpoint) {
      var option = el("option", "", endpoint.name);
      option.value = endpoint.id;
      return option;
    }));
    var previous = remembered(STORED_ENDPOINT);
    if (previous && endpoints.some(function (e) { return e.id === previous; })) {
      endpointSelect.value = previous;
    }
    showEndpointInfo();
  }

  function abbreviate(iri) {
    for (var i = 0; i < PREFIXES.length; i++) {
      var namespace = PREFIXES[i][1];
      if (iri.indexOf(namespace) === 0) return PREFIXES[i][0] + iri.slice(namespace.length);
    }
    return "<" + iri + ">";
  }

  function termNode(term) {
    if (!term) return document.createTextNode("");
    if (term.type === "uri") {
      return el("span", "iri", term.value);
    }
    if (term.type === "bnode") return el("span", "bnode", "_:" + term.value);
    if (term.type === "triple" && term.value) {
      var quoted = el("span", "triple");
      quoted.append("<< ", termNode(term.value.subject), " ", termNode(term.value.predicate),
        " ", termNode(term.value.object), " >>");
      return quoted;
    }
    var literal = el("span");
    literal.append(el("span", "literal", term.value));
    if (term["xml:lang"]) {
      literal.append(el("span", "lang", "@" + term["xml:lang"]));
    } else if (term.datatype) {
      var datatype = el("span", "datatype", "^^" + abbreviate(term.datatype));
      datatype.title = term.datatype;
      literal.append(datatype);
    }
    return literal;
  }

  function truncationNotice(count, noun) {
    return el("p", "notice", "Only the first " + plural(count, noun, noun + "s") +
      " are shown: the service caps every result at that many. " +
      "Add LIMIT/OFFSET to page through the rest.");
  }

  function showTable(document_, truncated, elapsed) {
    var variables = (document_.head && document_.head.vars) || [];
    var rows = (document_.results && document_.results.bindings) || [];
    var table = el("table");
    var caption = el("caption", "", "SELECT results: " + plural(rows.length, "row", "rows") +
      ", " + plural(variables.length, "variable", "variables") + (truncated ? " (cut)" : ""));
    var head = el("thead");
    var headRow = el("tr");
    var indexHeader = el("th", "index", "#");
    indexHeader.scope = "col";
    headRow.append(indexHeader);
    variables.forEach(function (name) {
      var th = el("th", "", "?" + name);
      th.scope = "col";
      headRow.append(th);
    });
    head.append(headRow);
    var body = el("tbody");
    rows.forEach(function (binding, index) {
      var tr = el("tr");
      tr.append(el("td", "index", String(index + 1)));
      variables.forEach(function (name) {
        var td = el("td");
        td.append(termNode(binding[name]));
        tr.append(td);
      });
      body.append(tr);
    });
    table.append(caption, head, body);
    var wrap = el("div", "table-wrap");
    wrap.append(table);
    results.replaceChildren();
    if (truncated) results.append(truncationNotice(rows.length, "row"));
    results.append(wrap);
    setStatus(plural(rows.length, "row", "rows") + (truncated ? " (cut at the limit)" : "") +
      " in " + formatElapsed(elapsed) + ".", false);
  }

  function showBoolean(value, elapsed) {
    results.replaceChildren(el("p", "hint", "ASK result"),
      el("p", "answer " + (value ? "yes" : "no"), value ? "Yes" : "No"));
    setStatus("ASK answered " + (value ? "yes" : "no") + " in " + formatElapsed(elapsed) + ".", false);
  }

  function showGraph(turtle, count, truncated, elapsed) {
    var pre = el("pre", "graph");
    pre.setAttribute("aria-label", "Result graph in Turtle");
    pre.append(el("code", "", turtle));
    results.replaceChildren();
    if (truncated) results.append(truncationNotice(count, "triple"));
    results.append(pre);
    setStatus(plural(count, "triple", "triples") + (truncated ? " (cut at the limit)" : "") +
      " in " + formatElapsed(elapsed) + ", as Turtle.", false);
  }

  function showError(title, detail, items, meta) {
    var box = el("div", "error");
    box.setAttribute("role", "alert");
    box.append(el("h3", "", title), el("p", "", detail));
    // Entries that only repeat the detail add nothing but noise.
    var extra = (items || []).filter(function (item) {
      return item && item.message && detail.indexOf(item.message) < 0;
    });
    if (extra.length > 0) {
      var list = el("ul");
      extra.forEach(function (item) {
        list.append(el("li", "", (item.path ? item.path + ": " : "") + item.message));
      });
      box.append(list);
    }
    if (meta) box.append(el("p", "meta", meta));
    results.replaceChildren(box);
  }

  function showFailure(title, error) {
    showError(title, error && error.message ? error.message : String(error));
    setStatus("Failed.", false);
  }

  function showProblem(response, text, elapsed) {
    var problem;
    try { problem = JSON.parse(text); } catch (_) { problem = null; }
    if (!problem || typeof problem !== "object") {
      problem = { title: "HTTP " + response.status, detail: text || response.statusText };
    }
    showError(problem.title || "HTTP " + response.status, problem.detail || "", problem.errors,
      "HTTP " + response.status + (problem.type ? " · " + problem.type : ""));
    setStatus("The query failed" + (elapsed === undefined ? "" : " after " + formatElapsed(elapsed)) +
      ".", false);
    var where = /^(\d+):(\d+)$/.exec((problem.errors && problem.errors[0] && problem.errors[0].path) || "");
    if (where) placeCaret(Number(where[1]), Number(where[2]));
  }

  /** Puts the caret where the parser stopped, so the mistake is one keystroke away. */
  function placeCaret(line, column) {
    var lines = queryArea.value.split("\n");
    if (line < 1 || line > lines.length) return;
    var offset = 0;
    for (var i = 0; i < line - 1; i++) offset += lines[i].length + 1;
    offset += Math.min(Math.max(column - 1, 0), lines[line - 1].length);
    queryArea.setSelectionRange(offset, offset);
  }

  async function runQuery() {
    if (running) return;
    var endpoint = endpointSelect.value;
    if (!endpoint) {
      showError("No endpoint", "Choose an endpoint to query.");
      return;
    }
    var query = queryArea.value;
    remember(STORED_QUERY, query);
    remember(STORED_ENDPOINT, endpoint);
    running = true;
    runButton.disabled = true;
    results.setAttribute("aria-busy", "true");
    setStatus("Running…", true);
    var started = performance.now();
    try {
      var response = await fetch(API + "query?endpoint=" + encodeURIComponent(endpoint), {
        method: "POST",
        headers: {
          "Content-Type": "application/sparql-query",
          "Accept": "application/sparql-results+json, text/turtle;q=0.9"
        },
        body: query
      });
      var text = await response.text();
      var elapsed = performance.now() - started;
      if (!response.ok) {
        showProblem(response, text, elapsed);
        return;
      }
      var type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
      var truncated = response.headers.get("X-Results-Truncated") === "true";
      if (type === "application/sparql-results+json") {
        var parsed = JSON.parse(text);
        if (typeof parsed.boolean === "boolean") showBoolean(parsed.boolean, elapsed);
        else showTable(parsed, truncated, elapsed);
      } else {
        var count = Number(response.headers.get("X-Result-Count") || "0");
        showGraph(text, count, truncated, elapsed);
      }
    } catch (error) {
      showFailure("The query could not be sent", error);
    } finally {
      running = false;
      runButton.disabled = false;
      results.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    runQuery();
  });
  queryArea.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      runQuery();
    }
  });
  sampleButton.addEventListener("click", function () {
    queryArea.value = SAMPLE;
    queryArea.focus();
  });
  endpointSelect.addEventListener("change", showEndpointInfo);

  queryArea.value = remembered(STORED_QUERY) || SAMPLE;
  loadEndpoints();
})();
</script>
</body>
</html>
`;
}
