/**
 * `/`: every workspace's collections with the items the store holds, the items the search
 * index holds, and what that says about the index; the service's readiness and outbox
 * backlog; recent jobs for admins.
 */
import {
  api,
  apiJson,
  applyRole,
  collectionLink,
  dataTable,
  el,
  errorBox,
  show,
  timeElement,
  withQuery,
  workspaces,
} from "./workbench.js";

/** How many documents the collection's index holds, or the error that stopped us asking. */
async function indexedCount(collection) {
  try {
    const answer = await apiJson(withQuery("/api/search", { collection, size: 0 }));
    return { count: answer.total };
  } catch (error) {
    return { error };
  }
}

/** Words for the index's state, from the two counts and the outbox backlog. */
function indexState(items, indexed, backlog) {
  if (indexed.error) return el("span", { class: "state bad" }, indexed.error.message);
  if (indexed.count === items) return el("span", { class: "state ok" }, "in step");
  const pending = backlog > 0 ? `; ${backlog} change(s) waiting in the outbox` : "";
  return el(
    "span",
    { class: "state warn" },
    `${Math.abs(items - indexed.count)} ${indexed.count < items ? "missing" : "extra"}${pending}`,
  );
}

async function showWorkspaces(backlog) {
  const container = document.getElementById("workspaces");
  try {
    const list = await workspaces();
    const sections = [];
    for (const workspace of list) {
      const rows = await Promise.all(workspace.collections.map(async (collection) => {
        const indexed = await indexedCount(collection.uri);
        return el(
          "tr",
          {},
          el("th", { scope: "row" }, collectionLink(collection.uri, collection.name)),
          el("td", { class: "uri" }, collection.uri),
          el("td", { class: "number" }, collection.items),
          el("td", { class: "number" }, indexed.error ? "–" : indexed.count),
          el("td", {}, indexState(collection.items, indexed, backlog)),
          el(
            "td",
            {},
            el("a", { href: withQuery("/ui/search", { collection: collection.uri }) }, "Search"),
          ),
        );
      }));
      sections.push(
        el("h3", {}, workspace.name, " ", el("small", { class: "uri" }, workspace.uri)),
        dataTable(
          `Collections of ${workspace.name}`,
          ["Collection", "URI", "Items", "Indexed", "Index", ""],
          rows,
          { class: "collections" },
        ),
      );
    }
    show(container, sections.length ? sections : el("p", {}, "No workspace is configured."));
  } catch (error) {
    show(container, errorBox(error));
  }
}

/** `/ready` answers 503 with the same body when a backend is down: show it either way. */
async function readiness() {
  const list = document.getElementById("readiness");
  try {
    const response = await api("/ready");
    const body = await response.json();
    const pairs = [el("dt", {}, "Status"), el("dd", {}, body.status ?? response.status)];
    for (const [name, check] of Object.entries(body.checks ?? {})) {
      const label = name === "outbox" ? "Outbox backlog" : name[0].toUpperCase() + name.slice(1);
      pairs.push(
        el("dt", {}, label),
        el(
          "dd",
          { class: check.ok ? "ok" : "bad" },
          `${check.ok ? "ok" : "down"}: ${check.detail}`,
        ),
      );
    }
    show(list, pairs);
    return typeof body.checks?.outbox?.detail === "number" ? body.checks.outbox.detail : 0;
  } catch (error) {
    show(list, el("dt", {}, "Status"), el("dd", {}, errorBox(error)));
    return 0;
  }
}

async function recentJobs() {
  const container = document.getElementById("recent-jobs");
  try {
    const jobs = await apiJson(withQuery("/api/admin/index/jobs", { limit: 5 }));
    if (jobs.length === 0) return show(container, el("p", {}, "No indexing job has run yet."));
    show(
      container,
      el(
        "ul",
        {},
        jobs.map((job) =>
          el(
            "li",
            {},
            el("a", { href: withQuery("/ui/job", { id: job.id }) }, `${job.scope.type} job`),
            ` ${job.state}, ${job.processed}/${job.total}, started `,
            timeElement(job.startedAt),
          )
        ),
      ),
    );
  } catch (error) {
    show(container, errorBox(error));
  }
}

const backlog = await readiness();
await showWorkspaces(backlog);
if (await applyRole()) await recentJobs();
