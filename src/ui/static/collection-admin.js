/**
 * The collection page's admin forms: import a file into the collection (items by graph, or
 * by subject for plain dumps) and make a new collection. Every call to the admin API is in
 * this file, the seam between the page and the routes it needs: `POST /api/admin/import`
 * (`itemsBy=subject` for dumps) and `POST /api/admin/collections` (docs/api.md, Collections
 * and workspaces at run time).
 */
import { api, el, ensureOk, errorBox, show, withQuery, workspaces } from "./workbench.js";

/**
 * The files the import takes, `{extensions, mediaType, graphs}` each, as the server's format
 * table lists them (rendered into the page: src/ui/format_lists.ts).
 */
function fileTypes() {
  return JSON.parse(document.getElementById("import-file")?.dataset.formats ?? "[]");
}

/** The media type of a file by its name, and whether it can name graphs; undefined if unknown. */
export function fileType(name) {
  const ending = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1).toLowerCase() : "";
  return fileTypes().find((type) => type.extensions.includes(ending));
}

/** Starts an import of `file`; resolves with the job (202) or throws an ApiError. */
export async function startImport(collection, file, { mode, itemsBy, mediaType }) {
  const response = await api(
    withQuery("/api/admin/import", {
      collection,
      mode,
      itemsBy: itemsBy === "subject" ? "subject" : undefined,
    }),
    { method: "POST", headers: { "Content-Type": mediaType }, body: file },
  );
  return await (await ensureOk(response)).json();
}

/** Makes a collection in a workspace; resolves with it as the API lists it. */
export async function createCollection({ workspace, uri, label, index }) {
  const body = { workspace, uri, ...(label ? { label } : {}), ...(index ? { index } : {}) };
  const response = await api("/api/admin/collections", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return await (await ensureOk(response)).json();
}

/** Wires the import form for `collection` (hidden when there is none). */
export function wireImportForm(collection) {
  const form = document.getElementById("import-form");
  const status = document.getElementById("import-status");
  const bySubject = document.getElementById("import-by-subject");
  if (!collection) {
    document.getElementById("import-section").hidden = true;
    return;
  }
  const fileInput = document.getElementById("import-file");
  fileInput.addEventListener("change", () => {
    const type = fileType(fileInput.files[0]?.name ?? "");
    // A dump without named graphs can only be imported by subject.
    if (type && !type.graphs) bySubject.checked = true;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = fileInput.files[0];
    const type = fileType(file?.name ?? "");
    if (!file || !type) {
      const endings = fileTypes().map((type) => `.${type.extensions[0]}`);
      show(status, errorBox(`Choose a ${endings.join(", ")} file.`));
      return;
    }
    if (!type.graphs && !bySubject.checked) {
      show(status, errorBox(`A ${type.mediaType} file has no named graphs: import it by subject.`));
      return;
    }
    show(status, `Uploading ${file.name}…`);
    try {
      const job = await startImport(collection, file, {
        mode: document.getElementById("import-mode").value,
        itemsBy: bySubject.checked ? "subject" : "graph",
        mediaType: type.mediaType,
      });
      location.href = withQuery("/ui/job", { kind: "import", id: job.id });
    } catch (error) {
      const running = error.problem?.runningJob;
      show(
        status,
        errorBox(error),
        running
          ? el("a", { href: withQuery("/ui/job", { kind: "import", id: running }) }, "See it")
          : undefined,
      );
    }
  });
}

/** Wires the new collection form: every workspace to choose from; opens the new collection. */
export async function wireNewCollectionForm() {
  const select = document.getElementById("new-workspace");
  const status = document.getElementById("new-status");
  show(
    select,
    (await workspaces()).map((workspace) =>
      el("option", { value: workspace.uri }, `${workspace.name} (${workspace.uri})`)
    ),
  );
  document.getElementById("new-collection-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    show(status, "Creating…");
    try {
      const made = await createCollection({
        workspace: select.value,
        uri: document.getElementById("new-uri").value.trim(),
        label: document.getElementById("new-label").value.trim(),
        index: document.getElementById("new-index").value.trim(),
      });
      location.href = withQuery("/ui/collection", { collection: made.uri });
    } catch (error) {
      show(status, errorBox(error));
    }
  });
}
