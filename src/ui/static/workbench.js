/**
 * What every workbench page shares: calling the JSON API with the user's bearer token (kept
 * in sessionStorage, asked for when the service answers 401), finding out whether the token
 * is an admin's (to hide what it cannot do), building DOM without innerHTML, and saving
 * responses as files.
 */

const TOKEN_KEY = "rdf-content-service.token";

/** The bearer token of this tab, or "". */
export function currentToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/** `Authorization` for the current token, or nothing. */
export function authHeaders() {
  const token = currentToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** An API answer that was not a success, with its problem+json if it had one. */
export class ApiError extends Error {
  constructor(status, problem, text) {
    const detail = problem?.detail ?? problem?.title ?? text ?? "";
    super(`${status} ${problem?.title ?? ""}${detail ? `: ${detail}` : ""}`.trim());
    this.status = status;
    this.problem = problem;
  }
}

let pendingTokenPrompt;

/** Opens the token dialog; resolves true when a token was given, false when cancelled. */
export function askForToken(reason) {
  pendingTokenPrompt ??= new Promise((resolve) => {
    const dialog = document.getElementById("token-dialog");
    const form = document.getElementById("token-form");
    const input = document.getElementById("token-input");
    document.getElementById("token-reason").textContent = reason ??
      "This service needs a bearer token. It is kept in this tab only (sessionStorage).";
    input.value = "";
    const finish = (given) => {
      form.removeEventListener("submit", onSubmit);
      dialog.removeEventListener("cancel", onCancel);
      document.getElementById("token-cancel").onclick = null;
      if (dialog.open) dialog.close();
      pendingTokenPrompt = undefined;
      showAccessState();
      resolve(given);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      if (!input.value.trim()) return;
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      roleProbe = undefined;
      finish(true);
    };
    const onCancel = () => finish(false);
    form.addEventListener("submit", onSubmit);
    dialog.addEventListener("cancel", onCancel);
    document.getElementById("token-cancel").onclick = onCancel;
    dialog.showModal();
    input.focus();
  });
  return pendingTokenPrompt;
}

/**
 * `fetch` against this service with the token. A 401 opens the token dialog and tries again
 * with the token given; a cancelled dialog leaves the 401 to the caller.
 */
export async function api(path, init = {}) {
  for (;;) {
    const headers = { ...(init.headers ?? {}), ...authHeaders() };
    const response = await fetch(path, { ...init, headers });
    if (response.status !== 401) return response;
    const reason = currentToken()
      ? "The token was refused. Give another one."
      : "This service needs a bearer token. It is kept in this tab only (sessionStorage).";
    if (!await askForToken(reason)) return response;
  }
}

/** The response if it succeeded, else an ApiError carrying its problem. */
export async function ensureOk(response) {
  if (response.ok) return response;
  const text = await response.text();
  let problem;
  try {
    problem = JSON.parse(text);
  } catch {
    problem = undefined;
  }
  throw new ApiError(response.status, problem, problem ? undefined : text.slice(0, 300));
}

/** GET (or `init`) and parse JSON, or throw an ApiError. */
export async function apiJson(path, init = {}) {
  const response = await ensureOk(await api(path, init));
  return await response.json();
}

/** A path with query parameters; arrays become repeated parameters. */
export function withQuery(path, parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== "") search.append(name, String(one));
    }
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** This page's query parameters. */
export function pageParameters() {
  return new URLSearchParams(location.search);
}

/**
 * Builds an element: `el("a", { href }, "text", child)`. Attributes starting with `on` are
 * listeners; `hidden`, `disabled` and `checked` are booleans; text is always text.
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/**
 * A table in a horizontally scrolling box: `caption` (omitted when empty), column headings,
 * body rows. The one shape every listing page uses.
 */
export function dataTable(caption, headings, rows, attributes = {}) {
  return el(
    "div",
    { class: "table-scroll" },
    el(
      "table",
      attributes,
      caption ? el("caption", {}, caption) : undefined,
      el("thead", {}, el("tr", {}, headings.map((title) => el("th", { scope: "col" }, title)))),
      el("tbody", {}, rows),
    ),
  );
}

/** Replaces a container's content. */
export function show(container, ...children) {
  container.replaceChildren(...children.flat().filter((child) => child !== undefined));
}

/** An error as an alert paragraph. */
export function errorBox(error) {
  const message = error instanceof Error ? error.message : String(error);
  return el("p", { class: "error", role: "alert" }, message);
}

/** A link to the item page. */
export function itemLink(collection, item, label = item) {
  return el("a", { href: withQuery("/ui/item", { collection, item }) }, label);
}

/** A link to the collection page. */
export function collectionLink(collection, label = collection) {
  return el("a", { href: withQuery("/ui/collection", { collection }) }, label);
}

/** Most IRIs one page asks labels for (the API takes 500; a URL stays short). */
const MAX_LABELLED = 200;

/**
 * Labels of a page's IRIs and the prefixes the service knows (`GET /api/labels`), in one
 * request, in the browser's languages. A failure leaves the page with IRIs, never broken.
 */
export async function fetchLabels(iris, collection) {
  const unique = [...new Set(iris)].filter((iri) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(iri));
  const none = { labels: {}, prefixes: {} };
  if (unique.length === 0) return none;
  try {
    return await apiJson(withQuery("/api/labels", {
      iri: unique.slice(0, MAX_LABELLED),
      collection: collection || undefined,
      lang: navigator.languages?.join(",") || undefined,
    }));
  } catch {
    return none;
  }
}

/** `prefix:local` for an IRI under one of `prefixes` (the longest namespace), else the IRI. */
export function compactIri(iri, prefixes) {
  let best;
  for (const [prefix, namespace] of Object.entries(prefixes ?? {})) {
    if (
      iri.startsWith(namespace) && iri.length > namespace.length &&
      (!best || namespace.length > best[1].length)
    ) best = [prefix, namespace];
  }
  return best ? `${best[0]}:${iri.slice(best[1].length)}` : iri;
}

/**
 * An IRI for reading: its label with the prefixed name (or IRI) after it in small type, or
 * the prefixed name alone; the full IRI in the title.
 */
export function labelledIri(iri, names) {
  const label = names?.labels?.[iri];
  const compact = compactIri(iri, names?.prefixes);
  if (!label) return el("span", { class: "iri", title: iri }, compact);
  return el(
    "span",
    { class: "labelled", title: iri, lang: label.language },
    label.value,
    " ",
    el("small", { class: "iri", lang: "" }, compact),
  );
}

let catalog;

/** `GET /api/workspaces`, once a page. */
export function workspaces() {
  catalog ??= apiJson("/api/workspaces");
  return catalog;
}

/** The configured collection of this URI, with its workspace, or undefined. */
export async function findCollection(uri) {
  for (const workspace of await workspaces()) {
    const collection = workspace.collections.find((candidate) => candidate.uri === uri);
    if (collection) return { workspace, collection };
  }
  return undefined;
}

/** Fills a select with every collection, grouped by workspace; picks `selected`. */
export async function fillCollectionSelect(select, selected) {
  const groups = (await workspaces()).map((workspace) =>
    el(
      "optgroup",
      { label: workspace.name },
      workspace.collections.map((collection) =>
        el(
          "option",
          { value: collection.uri, selected: collection.uri === selected },
          `${collection.name} (${collection.uri})`,
        )
      ),
    )
  );
  show(select, groups);
}

let roleProbe;

/**
 * Whether the token (or the local caller without tokens) may use the admin routes: a cheap
 * admin-only route answers 200 for an admin and 403 for a weaker role.
 */
export function isAdmin() {
  roleProbe ??= api("/api/admin/tools/sparqlui/sparql-endpoints").then(async (response) => {
    await response.body?.cancel();
    return response.ok;
  }, () => false);
  return roleProbe;
}

/** Hides what needs the admin role when the token is weaker. */
export async function applyRole() {
  const admin = await isAdmin();
  // workbench.css hides [data-needs-admin] until the body says the role allows it.
  document.body.classList.toggle("is-admin", admin);
  return admin;
}

function showAccessState() {
  const state = document.getElementById("access-state");
  if (state) state.textContent = currentToken() ? "Token set for this tab" : "";
}

/** The file name a response's Content-Disposition gives, or the fallback. */
function fileNameOf(response, fallback) {
  const disposition = response.headers.get("content-disposition") ?? "";
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  return match ? decodeURIComponent(match[1]) : fallback;
}

/** Saves a blob as a file the browser downloads. */
export function saveBlob(blob, fileName) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Fetches with the token and saves the answer as a file; resolves with its name. */
export async function download(path, init, fallbackName) {
  const response = await ensureOk(await api(path, init));
  const name = fileNameOf(response, fallbackName);
  saveBlob(await response.blob(), name);
  return name;
}

/** Formats an ISO time for people, keeping the ISO text as the title. */
export function timeElement(iso) {
  if (!iso) return "–";
  return el("time", { datetime: iso, title: iso }, new Date(iso).toLocaleString());
}

/** Wires the shared header: the token button and the admin-only parts. */
function initialiseShell() {
  showAccessState();
  document.getElementById("token-button")?.addEventListener("click", async () => {
    if (await askForToken()) location.reload();
  });
  document.getElementById("token-forget")?.addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });
  applyRole();
}

initialiseShell();
