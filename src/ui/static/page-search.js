/**
 * `/ui/search`: a search of one collection, several, or a whole workspace with the query
 * (and its language), filters, sort and window of `GET /api/search`, the form kept in the
 * page's URL. Each hit names the collection holding it and links to the item there, and
 * shows the service's
 * highlights (`highlight=true`: fragments where the query matched, stems included) or, when
 * there are none, the document fields that hold a query word, the word marked. The types
 * among all hits are counted (`facet=types`) and each count adds its filter. When the
 * service clamped the window it says so.
 */
import {
  apiJson,
  el,
  errorBox,
  fetchLabels,
  fillCollectionSelect,
  itemLink,
  labelledIri,
  pageParameters,
  show,
  withQuery,
  workspaces,
} from "./workbench.js";

const parameters = pageParameters();
const form = document.getElementById("search-form");
const fields = {
  collection: document.getElementById("collection"),
  workspace: document.getElementById("workspace"),
  q: document.getElementById("q"),
  language: document.getElementById("language"),
  filters: document.getElementById("filters"),
  sort: document.getElementById("sort"),
  size: document.getElementById("size"),
  from: document.getElementById("from"),
};

/** Fields shown for a hit at most; the service's own bookkeeping fields are not. */
const MAX_MATCHED_FIELDS = 4;
const HIDDEN_FIELDS = new Set(["collection", "workspace", "hash", "text", "sortLabel"]);
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

/**
 * A highlight fragment as nodes. The service escapes the text and adds only `<em>` around
 * matches, so the fragment is split on those tags and every other part stays text.
 */
function fragmentNodes(fragment) {
  // Parsed inside a <p>: text before any element would be read before <body>, where the
  // HTML parser drops leading white space (the space after a match).
  const decode = (html) =>
    new DOMParser().parseFromString(`<p>${html}`, "text/html").body.textContent;
  return fragment.split(/(<em>.*?<\/em>)/).filter((part) => part !== "").map((part) =>
    part.startsWith("<em>") ? el("mark", {}, decode(part.slice(4, -5))) : decode(part)
  );
}

function highlightList(highlights) {
  return el(
    "dl",
    { class: "matches" },
    Object.entries(highlights).flatMap(([field, fragments]) => [
      el("dt", {}, field),
      ...fragments.map((fragment) => el("dd", {}, fragmentNodes(fragment))),
    ]),
  );
}

function hitElement(hit, words, names) {
  if (hit.highlights && Object.keys(hit.highlights).length > 0) {
    return hitShell(hit, names, highlightList(hit.highlights));
  }
  const matches = matchedFields(hit.document, words);
  return hitShell(
    hit,
    names,
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

/** Collection URI → its name, for naming each hit's collection. */
const collectionNames = new Map();

function hitShell(hit, names, details) {
  const label = names.labels[hit.uri];
  return el(
    "li",
    { class: "hit" },
    el(
      "div",
      { class: "hit-head" },
      itemLink(hit.collection, hit.uri, label ? label.value : hit.uri),
      label ? el("small", { class: "iri" }, ` ${hit.uri}`) : undefined,
      " ",
      el(
        "span",
        { class: "hit-collection", title: hit.collection },
        `in ${collectionNames.get(hit.collection) ?? hit.collection}`,
      ),
      " ",
      el(
        "span",
        { class: "score" },
        hit.score == null ? "" : `score ${Number(hit.score).toFixed(3)}`,
      ),
    ),
    details,
  );
}

/** The type counts, by label; each adds `types:<IRI>` to the filters and searches again. */
function showTypeFacet(request, values, names) {
  const section = document.getElementById("facets");
  section.hidden = values.length === 0;
  show(
    document.getElementById("type-facet"),
    values.map(({ value, count }) =>
      el(
        "li",
        {},
        el(
          "a",
          {
            href: withQuery("/ui/search", {
              ...request,
              filter: [...request.filter, `types:${value}`],
              from: 0,
            }),
          },
          typeof value === "string" ? labelledIri(value, names) : String(value),
        ),
        ` (${count})`,
      )
    ),
  );
}

/** The form as `GET /api/search`'s parameters: a workspace, or the collections chosen. */
function readForm() {
  const workspace = fields.workspace.value;
  return {
    collection: workspace
      ? []
      : [...fields.collection.selectedOptions].map((option) => option.value),
    workspace: workspace || undefined,
    q: fields.q.value.trim(),
    language: fields.language.value,
    filter: lines(fields.filters.value),
    sort: lines(fields.sort.value),
    size: fields.size.value,
    from: fields.from.value,
  };
}

/** "N hit(s); showing a–b", or that the window starts past the last hit. */
function pageSummary(total, first, shown) {
  if (total === 0) return "No hit.";
  if (shown === 0) {
    return `${total} hit(s); none from ${first + 1} on: the page starts past the last hit.`;
  }
  return `${total} hit(s); showing ${first + 1}–${first + shown}.`;
}

function lastPageStart(total, size) {
  return Math.max(0, Math.floor((total - 1) / size) * size);
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
    const answer = await apiJson(withQuery("/api/search", {
      ...request,
      highlight: request.q ? "true" : undefined,
      facet: "types",
    }));
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
    const size = answer.size || answer.hits.length || 10;
    const types = answer.facets?.types ?? [];
    // One request labels the page: the hits and the types.
    const names = await fetchLabels(
      [...answer.hits.map((hit) => hit.uri), ...types.map(({ value }) => String(value))],
      request.collection[0],
    );
    if (runNumber !== latestRun) return;
    summary.textContent = pageSummary(answer.total, first, answer.hits.length);
    show(hits, answer.hits.map((hit) => hitElement(hit, words, names)));
    showTypeFacet(request, types, names);
    hits.start = first + 1;
    const links = [];
    if (answer.hits.length === 0 && answer.total > 0) {
      links.push(
        el(
          "a",
          {
            href: withQuery("/ui/search", { ...request, from: lastPageStart(answer.total, size) }),
          },
          "Last page",
        ),
      );
    } else if (first > 0) {
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

/** Searching a workspace leaves the collection list aside. */
function followWorkspace() {
  fields.collection.disabled = fields.workspace.value !== "";
}

/** The workspaces to choose from, and every collection's name for the hits. */
async function fillWorkspaces(selected) {
  const all = await workspaces();
  for (const workspace of all) {
    for (const collection of workspace.collections) {
      collectionNames.set(collection.uri, collection.name);
    }
  }
  show(
    fields.workspace,
    el("option", { value: "" }, "None: the collections chosen"),
    all.map((workspace) =>
      el("option", { value: workspace.uri, selected: workspace.uri === selected }, workspace.name)
    ),
  );
  followWorkspace();
}

fields.workspace.addEventListener("change", followWorkspace);

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const request = readForm();
  if (!request.workspace && request.collection.length === 0) {
    show(document.getElementById("summary"), "Choose a collection or a workspace.");
    return;
  }
  history.replaceState(null, "", withQuery("/ui/search", request));
  run(request);
});

fields.q.value = parameters.get("q") ?? "";
// A language the list does not offer is left to the service to refuse, not dropped.
if (parameters.has("language")) {
  const language = parameters.get("language");
  if (![...fields.language.options].some((option) => option.value === language)) {
    fields.language.append(el("option", { value: language }, language));
  }
  fields.language.value = language;
}
fields.filters.value = parameters.getAll("filter").join("\n");
fields.sort.value = parameters.getAll("sort").join("\n");
if (parameters.has("size")) fields.size.value = parameters.get("size");
if (parameters.has("from")) fields.from.value = parameters.get("from");
try {
  await fillCollectionSelect(fields.collection);
  await fillWorkspaces(parameters.get("workspace"));
  const chosen = parameters.getAll("collection");
  for (const option of fields.collection.options) option.selected = chosen.includes(option.value);
  // Nothing asked: the first collection, as a single choice would start.
  if (chosen.length === 0 && !parameters.get("workspace") && fields.collection.options.length) {
    fields.collection.options[0].selected = true;
  }
  if (chosen.length > 0 || parameters.get("workspace")) await run(readForm());
} catch (error) {
  show(document.getElementById("summary"), errorBox(error));
}
