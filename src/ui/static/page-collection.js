/**
 * `/ui/collection?collection=…`: the collection's items, as the search index lists them,
 * a page at a time, narrowed by a full-text filter and a type; and its recent changes, live
 * (collection-changes.js).
 */
import { wireImportForm, wireNewCollectionForm } from "./collection-admin.js";
import { showRecentChanges } from "./collection-changes.js";
import {
  apiJson,
  applyRole,
  dataTable,
  el,
  errorBox,
  fetchLabels,
  findCollection,
  itemLink,
  labelledIri,
  pageParameters,
  show,
  timeElement,
  withQuery,
} from "./workbench.js";

const PAGE_SIZE = 20;
const parameters = pageParameters();
const collection = parameters.get("collection") ?? "";
const q = parameters.get("q") ?? "";
const type = parameters.get("type") ?? "";
const from = Math.max(0, Number.parseInt(parameters.get("from") ?? "0", 10) || 0);

document.getElementById("q").value = q;
document.getElementById("type").value = type;
document.getElementById("filter-form").addEventListener("submit", (event) => {
  event.preventDefault();
  location.search = withQuery("", {
    collection,
    q: document.getElementById("q").value.trim(),
    type: document.getElementById("type").value.trim(),
  });
});

/** The first string value of a document field that reads like a title. */
function titleOf(document) {
  for (const field of ["title", "label", "name", "prefLabel", "dct:title", "rdfs:label"]) {
    const value = document[field];
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string") return first;
    if (first && typeof first === "object" && typeof first["@value"] === "string") {
      return first["@value"];
    }
  }
  return "";
}

function pagerLink(label, offset) {
  return el(
    "a",
    { href: withQuery("/ui/collection", { collection, q, type, from: offset }) },
    label,
  );
}

/** Who may do what with the collection: the caller's rights, and its grants when shown. */
function accessLine(entry) {
  const rights = entry.rights?.includes("write") ? "read and write" : "read";
  const grants = entry.access === undefined
    ? ""
    : entry.access === null
    ? " No grants: the global roles decide."
    : ` Readers: ${entry.access.readers.join(", ") || "none"}; editors: ${
      entry.access.editors.join(", ") || "none"
    }.`;
  return el("span", { id: "collection-access" }, `You may ${rights} it.${grants}`);
}

async function showItems() {
  const info = document.getElementById("collection-info");
  const container = document.getElementById("items");
  const summary = document.getElementById("summary");
  if (!collection) {
    show(container, errorBox("Name a collection: /ui/collection?collection=<its URI>."));
    return;
  }
  try {
    const found = await findCollection(collection);
    if (found) {
      document.querySelector("h1").textContent = found.collection.name;
      document.title = `${found.collection.name} · RDF content service`;
      // The collection's editors import into it, whatever their global role.
      if (found.collection.rights?.includes("maintain")) {
        document.getElementById("import-section")?.removeAttribute("data-needs-admin");
      }
      show(
        info,
        `${collection} in ${found.workspace.name}: ${found.collection.items} item(s) stored. `,
        el("a", { href: withQuery("/ui/search", { collection }) }, "Search it"),
        el("br"),
        accessLine(found.collection),
      );
    }
    const answer = await apiJson(withQuery("/api/search", {
      collection,
      q,
      filter: type ? `types:${type}` : undefined,
      sort: q ? undefined : "uri:asc",
      from,
      size: PAGE_SIZE,
    }));
    const last = from + answer.hits.length;
    summary.textContent = answer.total === 0
      ? "No item matches."
      : answer.hits.length === 0
      ? `${answer.total} item(s); none from ${from + 1} on: the page starts past the last item.`
      : `Items ${from + 1}–${last} of ${answer.total}.`;
    const types = answer.hits.flatMap((hit) => hit.document.types ?? []);
    const names = await fetchLabels([...answer.hits.map((hit) => hit.uri), ...types], collection);
    const rows = answer.hits.map((hit) =>
      el(
        "tr",
        {},
        el("td", { class: "uri" }, itemLink(collection, hit.uri)),
        el("td", {}, names.labels[hit.uri]?.value ?? titleOf(hit.document)),
        el(
          "td",
          { class: "types" },
          (hit.document.types ?? []).flatMap((type, index) => [
            index > 0 ? ", " : "",
            labelledIri(type, names),
          ]),
        ),
        el("td", {}, timeElement(hit.document.modified)),
      )
    );
    show(
      container,
      dataTable("Items", ["Item", "Label", "Types", "Modified"], rows),
    );
    const links = [];
    if (answer.hits.length === 0 && answer.total > 0) {
      links.push(pagerLink("Last page", Math.floor((answer.total - 1) / PAGE_SIZE) * PAGE_SIZE));
    } else if (from > 0) links.push(pagerLink("Previous page", Math.max(0, from - PAGE_SIZE)));
    if (last < answer.total) links.push(pagerLink("Next page", last));
    show(document.getElementById("pager"), links);
  } catch (error) {
    show(container, errorBox(error));
  }
}

if (await applyRole()) {
  wireImportForm(collection);
  await wireNewCollectionForm().catch((error) =>
    show(document.getElementById("new-status"), errorBox(error))
  );
}
await showItems();
// After the items: their first call has asked for a token if one is needed.
if (collection) showRecentChanges(collection);
else document.getElementById("changes-section").hidden = true;
