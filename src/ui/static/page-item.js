/**
 * `/ui/item?collection=…&item=…`: the item's graph as a table per subject (IRIs as links,
 * blank nodes nested where they are used once), its ETag, its downloads and the document
 * the search index holds for it.
 *
 * Links go where the resource is (issue 43): an IRI links to the item page of the collection
 * that holds it, whichever collection this page shows; one no readable collection holds is
 * an external link. An item this collection does not hold, or `/ui/item?item=…` without a
 * collection, names the collections that hold it instead of offering downloads of nothing.
 *
 * Its History section (item-history.js) lists the item's versions once opened; a deleted
 * item (410) shows that it was deleted, with its history and, for editors, its restore.
 */
import {
  api,
  apiJson,
  collectionLink,
  compactIri,
  download,
  el,
  ensureOk,
  errorBox,
  fetchLabels,
  findCollection,
  itemLink,
  labelledIri,
  pageParameters,
  show,
  withQuery,
} from "./workbench.js";
import { COMMON_PREFIXES as PREFIXES } from "./prefixes.js";
import { wireItemHistory } from "./item-history.js";

const parameters = pageParameters();
const collection = parameters.get("collection") ?? "";
const item = parameters.get("item") ?? "";

/** Labels and the service's prefixes of the IRIs on this page (fetchLabels). */
let names = { labels: {}, prefixes: {} };

function shorten(iri) {
  return compactIri(iri, { ...PREFIXES, ...names.prefixes });
}

/**
 * An IRI in the history's changes: its label (when the page has one) and shortened form. Not
 * the item's own label: that is the newest version's, often the very triple that changed.
 */
function changedIri(iri) {
  const prefixes = { ...PREFIXES, ...names.prefixes };
  return labelledIri(iri, { labels: iri === item ? {} : names.labels, prefixes });
}

/**
 * The readable collections holding each linked IRI (`GET /api/item/collections`); an IRI
 * not in it was not asked (past the cap, or the lookup failed).
 */
let holders = {};

/** Most IRIs one page asks about (the API takes 200). */
const MAX_LOOKED_UP = 200;

/** The readable collections that hold each of `iris`, in one request; {} when it fails. */
async function fetchHolders(iris) {
  const asked = [...new Set(iris)].filter((iri) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(iri));
  if (asked.length === 0) return {};
  try {
    const answer = await apiJson(
      withQuery("/api/item/collections", { item: asked.slice(0, MAX_LOOKED_UP) }),
    );
    return answer.collections;
  } catch {
    return {};
  }
}

/**
 * A link to the IRI where it is: the item page of this page's collection when it holds it
 * (several collections may hold items of one IRI: a vocabulary's own terms first), else of
 * the one collection holding it; the page that lists the holders (or finds them, when not
 * known here) for several or unknown; the IRI itself when no readable collection holds it.
 */
function resourceLink(iri, text) {
  const held = holders[iri];
  if (held?.includes(collection)) return itemLink(collection, iri, text);
  if (held?.length === 1) return itemLink(held[0], iri, text);
  if (held === undefined || held.length > 1) {
    return el("a", { href: withQuery("/ui/item", { item: iri }) }, text);
  }
  return /^https?:/i.test(iri)
    ? el("a", { href: iri, class: "external", rel: "noopener noreferrer" }, text)
    : el("span", {}, text);
}

/** Every IRI the graph names as an object: the ones the page links. */
function linkedIris(graph) {
  const iris = new Set();
  for (const predicates of Object.values(graph)) {
    for (const objects of Object.values(predicates)) {
      for (const object of objects) if (object.type === "uri") iris.add(object.value);
    }
  }
  return [...iris];
}

/** Every IRI the graph names as a subject or an object. */
function irisOf(graph) {
  const iris = new Set(Object.keys(graph).filter((subject) => !subject.startsWith("_:")));
  for (const predicates of Object.values(graph)) {
    for (const objects of Object.values(predicates)) {
      for (const object of objects) if (object.type === "uri") iris.add(object.value);
    }
  }
  return [...iris];
}

/**
 * The download formats, `{extension, label}` each, as the server's format table lists them
 * (rendered into the page: src/ui/format_lists.ts).
 */
const DOWNLOADS = JSON.parse(document.getElementById("downloads").dataset.formats);

/** RDF/JSON: subject → predicate → objects. Counts how often each blank node is an object. */
function blankUses(graph) {
  const uses = new Map();
  for (const predicates of Object.values(graph)) {
    for (const objects of Object.values(predicates)) {
      for (const object of objects) {
        if (object.type === "bnode") uses.set(object.value, (uses.get(object.value) ?? 0) + 1);
      }
    }
  }
  return uses;
}

function termCell(object, graph, uses, visiting) {
  if (object.type === "uri") {
    const label = names.labels[object.value];
    return el(
      "span",
      { class: label ? "labelled" : "iri", title: object.value },
      resourceLink(object.value, label ? label.value : shorten(object.value)),
      label ? el("small", { class: "iri" }, ` ${shorten(object.value)}`) : undefined,
    );
  }
  if (object.type === "bnode") {
    // Used once and described here: shown in place, as part of its subject.
    if (uses.get(object.value) === 1 && graph[object.value] && !visiting.has(object.value)) {
      return propertyTable(object.value, graph, uses, new Set([...visiting, object.value]));
    }
    return el("a", { class: "bnode", href: `#${blankId(object.value)}` }, object.value);
  }
  const extra = object.lang
    ? el("span", { class: "lang" }, ` @${object.lang}`)
    : object.datatype && object.datatype !== PREFIXES.xsd + "string"
    ? el("span", { class: "datatype", title: object.datatype }, ` ^^${shorten(object.datatype)}`)
    : undefined;
  return el("span", { class: "literal" }, object.value, extra);
}

function blankId(label) {
  return `bnode-${label.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

function propertyTable(subject, graph, uses, visiting) {
  const rows = Object.entries(graph[subject]).map(([predicate, objects]) =>
    el(
      "tr",
      {},
      el("th", { scope: "row", class: "predicate", title: predicate }, shorten(predicate)),
      el(
        "td",
        {},
        objects.length === 1 ? termCell(objects[0], graph, uses, visiting) : el(
          "ul",
          { class: "values" },
          objects.map((o) => el("li", {}, termCell(o, graph, uses, visiting))),
        ),
      ),
    )
  );
  return el("table", { class: "properties" }, el("tbody", {}, rows));
}

function renderGraph(graph) {
  const uses = blankUses(graph);
  const subjects = Object.keys(graph).filter((subject) =>
    !subject.startsWith("_:") || uses.get(subject) !== 1
  );
  // The item first, then other IRIs, then blank nodes shown on their own.
  subjects.sort((a, b) =>
    (a === item ? -1 : b === item ? 1 : 0) ||
    Number(a.startsWith("_:")) - Number(b.startsWith("_:")) || a.localeCompare(b)
  );
  return subjects.map((subject) =>
    el(
      "section",
      { class: "subject", id: subject.startsWith("_:") ? blankId(subject) : undefined },
      el(
        "h3",
        {},
        subject.startsWith("_:") ? subject : el("span", { class: "iri", title: subject }, subject),
      ),
      names.labels[subject]
        ? el(
          "p",
          { class: "subject-label", lang: names.labels[subject].language },
          names.labels[subject].value,
        )
        : undefined,
      el("div", { class: "table-scroll" }, propertyTable(subject, graph, uses, new Set([subject]))),
    )
  );
}

/** The downloads and indexed-document sections, hidden where there is no item to offer. */
const ITEM_SECTIONS = ["downloads", "indexed"].map((id) =>
  document.getElementById(id).closest("section")
);
const HISTORY_SECTION = document.getElementById("history-section");

function hideItemSections() {
  for (const section of ITEM_SECTIONS) section.hidden = true;
}

/** The item's ETag as the page shows it: what a restore is conditional on; none once deleted. */
let currentEtag;

/**
 * Shows the item: "shown" (this collection holds it), "deleted" (it did, and its history
 * remains) or "unavailable" (the page says where it is instead, or why it cannot be read).
 */
async function showItem() {
  const info = document.getElementById("item-info");
  const graphBox = document.getElementById("graph");
  document.title = `${shorten(item)} · RDF content service`;
  document.querySelector("h1").textContent = item;
  let response;
  try {
    response = await ensureOk(
      await api(withQuery("/api/item", { collection, item }), {
        headers: { Accept: "application/rdf+json" },
      }),
    );
  } catch (error) {
    // Not here (or no readable collection of that name): perhaps in another collection.
    if (error.status === 404) await showWhereItIs(error);
    else if (error.status === 410) {
      showDeleted(error);
      return "deleted";
    } else show(graphBox, errorBox(error));
    return "unavailable";
  }
  for (const section of ITEM_SECTIONS) section.hidden = false;
  currentEtag = response.headers.get("etag") ?? undefined;
  showDownloads();
  try {
    const graph = await response.json();
    [names, holders] = await Promise.all([
      fetchLabels(irisOf(graph), collection),
      fetchHolders(linkedIris(graph)),
    ]);
    const label = names.labels[item];
    if (label) {
      document.querySelector("h1").textContent = label.value;
      document.title = `${label.value} · RDF content service`;
    }
    const triples = Object.values(graph).flatMap((p) => Object.values(p)).flat().length;
    show(
      info,
      el("dt", {}, "Item"),
      el("dd", { class: "uri" }, item),
      el("dt", {}, "Collection"),
      el("dd", {}, collectionLink(collection)),
      el("dt", {}, "ETag"),
      el("dd", { id: "etag", class: "uri" }, response.headers.get("etag") ?? "–"),
      el("dt", {}, "Triples"),
      el("dd", {}, triples),
    );
    show(graphBox, renderGraph(graph));
  } catch (error) {
    show(graphBox, errorBox(error));
  }
  return "shown";
}

/** A deleted item (`gone`, its 410): when and by which version, its history below. */
function showDeleted(gone) {
  hideItemSections();
  currentEtag = undefined;
  show(
    document.getElementById("item-info"),
    el("dt", {}, "Item"),
    el("dd", { class: "uri" }, item),
    el("dt", {}, "Collection"),
    el("dd", {}, collectionLink(collection)),
    el("dt", {}, "State"),
    el("dd", { id: "item-state" }, "deleted"),
  );
  show(
    document.getElementById("graph"),
    el(
      "p",
      { id: "deleted", class: "note" },
      gone.problem?.detail ?? gone.message,
      " Its versions are listed under History; restoring one (editors) brings the item back.",
    ),
  );
}

/**
 * Where the item is, when this page's collection does not hold it (`notHere`, its 404) or
 * names none: the one readable collection holding it is opened (without a collection named),
 * several are listed, none is said, with the IRI itself to follow.
 */
async function showWhereItIs(notHere) {
  const graphBox = document.getElementById("graph");
  hideItemSections();
  HISTORY_SECTION.hidden = true;
  document.querySelector("h1").textContent = item;
  const found = (await fetchHolders([item]))[item];
  if (found?.length === 1 && !notHere) {
    location.replace(withQuery("/ui/item", { collection: found[0], item }));
    return;
  }
  if (found === undefined) {
    show(graphBox, errorBox(notHere ?? "Could not find the collections that hold this item."));
    return;
  }
  const missing = notHere
    ? `The collection ${collection} holds no item ${item}`
    : `No collection was named for ${item}`;
  if (found.length === 0) {
    show(
      graphBox,
      el(
        "p",
        { id: "where", class: "note" },
        `${missing}, and no collection you may read holds it. `,
        /^https?:/i.test(item)
          ? el("a", { href: item, class: "external", rel: "noopener noreferrer" }, "Open the IRI")
          : undefined,
      ),
    );
    return;
  }
  const titles = await Promise.all(
    found.map(async (uri) => (await findCollection(uri).catch(() => undefined))?.collection.name),
  );
  show(
    graphBox,
    el(
      "p",
      { id: "where", class: "note" },
      `${missing}; ${
        found.length === 1 ? "this collection holds it" : "these collections hold it"
      }:`,
    ),
    el(
      "ul",
      { class: "holders" },
      found.map((uri, index) =>
        el("li", {}, itemLink(uri, item, titles[index] ? `${titles[index]} (${uri})` : uri))
      ),
    ),
  );
}

function showDownloads() {
  const status = document.getElementById("download-status");
  show(
    document.getElementById("downloads"),
    DOWNLOADS.map(({ extension, label }) =>
      el("button", {
        type: "button",
        "data-format": extension,
        onclick: async () => {
          status.textContent = `Downloading ${label}…`;
          try {
            const name = await download(
              withQuery(`/api/item.${extension}`, { collection, item }),
              {},
              `item.${extension}`,
            );
            status.textContent = `Saved ${name}.`;
          } catch (error) {
            status.textContent = error.message;
          }
        },
      }, `${label} (.${extension})`)
    ),
  );
}

/** The search index's document of the item, asked at once and shown once the item is found. */
function askIndexed() {
  return apiJson(withQuery("/api/search", { collection, filter: `uri:${item}`, size: 1 }))
    .then((answer) => ({ answer }), (error) => ({ error }));
}

function showIndexed({ answer, error }) {
  const box = document.getElementById("indexed");
  if (error) {
    show(box, errorBox(error));
    return;
  }
  const hit = answer.hits.find((candidate) => candidate.uri === item);
  show(
    box,
    hit
      ? el("pre", { class: "code", tabindex: 0 }, JSON.stringify(hit.document, null, 2))
      : el("p", {}, "The search index holds no document for this item (yet)."),
  );
}

/** Whether the caller may write this collection: restore is offered only then. */
function mayWrite() {
  return findCollection(collection).then(
    (found) => found?.collection.rights?.includes("write") ?? false,
    () => false,
  );
}

/** Reads the item again (after a restore): the graph, its ETag and its indexed document. */
async function reloadItem() {
  const indexed = askIndexed();
  if (await showItem() === "shown") showIndexed(await indexed);
}

if (!item) {
  hideItemSections();
  HISTORY_SECTION.hidden = true;
  show(
    document.getElementById("graph"),
    errorBox("Name the item: /ui/item?item=<URI>, with &collection=<URI> when known."),
  );
} else if (!collection) {
  await showWhereItIs(undefined);
} else {
  const indexed = askIndexed();
  const state = await showItem();
  if (state === "unavailable") HISTORY_SECTION.hidden = true;
  else {
    const history = wireItemHistory({
      collection,
      item,
      terms: { iri: changedIri, shorten },
      mayRestore: mayWrite(),
      etag: () => currentEtag,
      reloadItem,
    });
    // A deleted item is its history: open it at once.
    if (state === "deleted") await history.open();
  }
  if (state === "shown") showIndexed(await indexed);
}
