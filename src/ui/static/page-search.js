/**
 * `/ui/search`: a collection's search with the query, filters, sort and window of
 * `GET /api/search`, the form kept in the page's URL. The search API returns no highlights,
 * so each hit shows the document fields that hold a query word, the word marked; when the
 * service clamped the window it says so.
 */
import {
  apiJson,
  el,
  errorBox,
  fillCollectionSelect,
  itemLink,
  pageParameters,
  show,
  withQuery,
} from "./workbench.js";

const parameters = pageParameters();
const form = document.getElementById("search-form");
const fields = {
  collection: document.getElementById("collection"),
  q: document.getElementById("q"),
  filters: document.getElementById("filters"),
  sort: document.getElementById("sort"),
  size: document.getElementById("size"),
  from: document.getElementById("from"),
};

/** Fields shown for a hit at most; the service's own bookkeeping fields are not. */
const MAX_MATCHED_FIELDS = 4;
const HIDDEN_FIELDS = new Set(["collection", "workspace", "hash", "text"]);
const SNIPPET_RADIUS = 60;

function lines(text) {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
}

function queryWords(q) {
  return [...new Set((q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1))];
}

/** `text` with every query word wrapped in <mark>. */
function marked(text, words) {
  if (words.length === 0) return [text];
  const pattern = new RegExp(
    `(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`,
    "giu",
  );
  return text.split(pattern).map((part, index) => index % 2 === 1 ? el("mark", {}, part) : part);
}

/** Every string in a document value with its field path: `author.name`. */
function strings(value, path, out) {
  if (typeof value === "string") out.push([path, value]);
  else if (Array.isArray(value)) { for (const one of value) strings(one, path, out); }
  else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      strings(inner, key.startsWith("@") ? path : path ? `${path}.${key}` : key, out);
    }
  }
  return out;
}

/** The part of a long text around its first match. */
function snippet(text, words) {
  const lower = text.toLowerCase();
  const at = Math.min(...words.map((w) => lower.indexOf(w)).filter((i) => i >= 0));
  if (!Number.isFinite(at) || text.length <= 2 * SNIPPET_RADIUS) return text;
  const start = Math.max(0, at - SNIPPET_RADIUS);
  return `${start > 0 ? "…" : ""}${text.slice(start, at + SNIPPET_RADIUS)}…`;
}

function matchedFields(document, words) {
  const found = strings(document, "", [])
    .filter(([path]) => !HIDDEN_FIELDS.has(path.split(".")[0]))
    .filter(([, value]) => words.some((word) => value.toLowerCase().includes(word)));
  if (found.length === 0 && typeof document.text === "string" && words.length > 0) {
    found.push(["text", document.text]);
  }
  return found.slice(0, MAX_MATCHED_FIELDS);
}

function hitElement(collection, hit, words) {
  const matches = matchedFields(hit.document, words);
  return el(
    "li",
    { class: "hit" },
    el(
      "div",
      { class: "hit-head" },
      itemLink(collection, hit.uri),
      " ",
      el(
        "span",
        { class: "score" },
        hit.score == null ? "" : `score ${Number(hit.score).toFixed(3)}`,
      ),
    ),
    matches.length
      ? el(
        "dl",
        { class: "matches" },
        matches.flatMap(([path, value]) => [
          el("dt", {}, path),
          el("dd", {}, marked(snippet(value, words), words)),
        ]),
      )
      : undefined,
  );
}

function readForm() {
  return {
    collection: fields.collection.value,
    q: fields.q.value.trim(),
    filter: lines(fields.filters.value),
    sort: lines(fields.sort.value),
    size: fields.size.value,
    from: fields.from.value,
  };
}

let latestRun = 0;

async function run(request) {
  // Only the newest search may fill the page, whichever answer comes last.
  const runNumber = ++latestRun;
  const summary = document.getElementById("summary");
  const hits = document.getElementById("hits");
  const clamped = document.getElementById("clamped");
  const pager = document.getElementById("pager");
  summary.textContent = "Searching…";
  clamped.hidden = true;
  try {
    const answer = await apiJson(withQuery("/api/search", request));
    if (runNumber !== latestRun) return;
    const words = queryWords(request.q ?? "");
    if (answer.clamped) {
      const { requested, applied } = answer.clamped;
      clamped.textContent = `The service clamped this search to its limits: asked for ` +
        `${requested.size ?? "the default number of"} hits from ${requested.from ?? 0}, ` +
        `answered ${applied.size} from ${applied.from}.`;
      clamped.hidden = false;
    }
    const first = answer.from ?? 0;
    summary.textContent = answer.total === 0
      ? "No hit."
      : `${answer.total} hit(s); showing ${first + 1}–${first + answer.hits.length}.`;
    show(hits, answer.hits.map((hit) => hitElement(request.collection, hit, words)));
    hits.start = first + 1;
    const size = answer.size || answer.hits.length || 10;
    const links = [];
    if (first > 0) {
      links.push(
        el(
          "a",
          { href: withQuery("/ui/search", { ...request, from: Math.max(0, first - size) }) },
          "Previous page",
        ),
      );
    }
    if (first + answer.hits.length < answer.total) {
      links.push(
        el(
          "a",
          { href: withQuery("/ui/search", { ...request, from: first + answer.hits.length }) },
          "Next page",
        ),
      );
    }
    show(pager, links);
  } catch (error) {
    summary.textContent = "";
    show(hits);
    show(pager);
    show(summary, errorBox(error));
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const request = readForm();
  history.replaceState(null, "", withQuery("/ui/search", request));
  run(request);
});

fields.q.value = parameters.get("q") ?? "";
fields.filters.value = parameters.getAll("filter").join("\n");
fields.sort.value = parameters.getAll("sort").join("\n");
if (parameters.has("size")) fields.size.value = parameters.get("size");
if (parameters.has("from")) fields.from.value = parameters.get("from");
try {
  await fillCollectionSelect(fields.collection, parameters.get("collection"));
  if (parameters.has("collection")) await run(readForm());
} catch (error) {
  show(document.getElementById("summary"), errorBox(error));
}
