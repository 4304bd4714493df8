/**
 * `/ui/jobs`: start a workspace, collection or items indexing job (admin) and list the
 * recent jobs, refreshed while one runs. A started job opens its own page.
 */
import {
  api,
  apiJson,
  applyRole,
  dataTable,
  el,
  ensureOk,
  errorBox,
  fillCollectionSelect,
  show,
  timeElement,
  withQuery,
  workspaces,
} from "./workbench.js";

const REFRESH_MS = 2000;

function scopeText(scope) {
  if (scope.type === "items") return `${scope.items?.length ?? 0} item(s) of ${scope.uri}`;
  return `${scope.type} ${scope.uri}`;
}

async function listJobs() {
  const container = document.getElementById("jobs");
  try {
    const jobs = await apiJson(withQuery("/api/admin/index/jobs", { limit: 50 }));
    if (jobs.length === 0) {
      show(container, el("p", {}, "No indexing job has run yet."));
      return false;
    }
    const rows = jobs.map((job) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: withQuery("/ui/job", { id: job.id }) }, job.id)),
        el("td", {}, scopeText(job.scope), job.clear ? " (rebuild)" : ""),
        el("td", { class: `state ${job.state}` }, job.state),
        el("td", { class: "number" }, `${job.processed}/${job.total}`),
        el("td", { class: "number" }, job.failed),
        el("td", {}, timeElement(job.startedAt)),
        el("td", {}, timeElement(job.finishedAt)),
      )
    );
    show(
      container,
      dataTable(
        "Recent indexing jobs, newest first",
        ["Job", "Scope", "State", "Processed", "Failed", "Started", "Finished"],
        rows,
      ),
    );
    return jobs.some((job) => job.state === "running" || job.state === "queued");
  } catch (error) {
    show(container, errorBox(error));
    return false;
  }
}

/**
 * The outbox's backlog and its dead letters (items the search engine refused for good,
 * out of the backlog), as `/ready` tells them; it answers 503 with the same body.
 */
async function outboxState() {
  const list = document.getElementById("outbox");
  try {
    const body = await (await api("/ready")).json();
    const { outbox, deadLetters } = body.checks ?? {};
    show(
      list,
      el("dt", {}, "Backlog"),
      el("dd", {}, String(outbox?.detail ?? "unknown")),
      el("dt", {}, "Dead letters"),
      el("dd", { class: deadLetters?.detail === "none" ? "ok" : "bad" }, deadLetters?.detail ?? ""),
    );
  } catch (error) {
    show(list, errorBox(error));
  }
}

/** The recent import jobs (`GET /api/admin/import/jobs`); true while one runs. */
async function listImports() {
  const container = document.getElementById("imports");
  try {
    const jobs = await apiJson(withQuery("/api/admin/import/jobs", { limit: 50 }));
    if (jobs.length === 0) {
      show(container, el("p", {}, "No import has run yet."));
      return false;
    }
    const rows = jobs.map((job) =>
      el(
        "tr",
        {},
        el(
          "td",
          {},
          el("a", { href: withQuery("/ui/job", { kind: "import", id: job.id }) }, job.id),
        ),
        el("td", { class: "uri" }, job.collection),
        el("td", { class: `state ${job.state}` }, job.state),
        el("td", { class: "number" }, job.written),
        el("td", { class: "number" }, job.refused),
        el("td", {}, timeElement(job.startedAt)),
        el("td", {}, timeElement(job.finishedAt)),
      )
    );
    show(
      container,
      dataTable(
        "Recent import jobs, newest first",
        ["Job", "Collection", "State", "Written", "Refused", "Started", "Finished"],
        rows,
        { id: "import-jobs" },
      ),
    );
    return jobs.some((job) => job.state === "running" || job.state === "queued");
  } catch (error) {
    show(container, errorBox(error));
    return false;
  }
}

async function refreshWhileRunning() {
  const running = await Promise.all([listJobs(), listImports()]);
  if (running.some(Boolean)) setTimeout(refreshWhileRunning, REFRESH_MS);
}

/** Starts a job; on 202 opens its page, on a problem says why (and links a running job). */
async function start(path, parameters) {
  const status = document.getElementById("start-status");
  show(status, "Starting…");
  try {
    const response = await api(withQuery(path, parameters), { method: "POST" });
    if (response.status === 409) {
      const problem = await response.json();
      show(
        status,
        errorBox(problem.detail ?? problem.title),
        problem.runningJob
          ? el(
            "a",
            { href: withQuery("/ui/job", { id: problem.runningJob }) },
            "See the running job",
          )
          : undefined,
      );
      return;
    }
    const job = await (await ensureOk(response)).json();
    location.href = withQuery("/ui/job", { id: job.id });
  } catch (error) {
    show(status, errorBox(error));
  }
}

async function wireForms() {
  const select = document.getElementById("workspace");
  show(
    select,
    (await workspaces()).map((workspace) =>
      el("option", { value: workspace.uri }, `${workspace.name} (${workspace.uri})`)
    ),
  );
  await fillCollectionSelect(document.getElementById("collection"));
  await fillCollectionSelect(document.getElementById("items-collection"));
  document.getElementById("start-workspace").addEventListener("submit", (event) => {
    event.preventDefault();
    start("/api/admin/index", {
      workspace: select.value,
      clear: document.getElementById("workspace-clear").checked ? "true" : undefined,
    });
  });
  document.getElementById("start-collection").addEventListener("submit", (event) => {
    event.preventDefault();
    start("/api/admin/index/collection", {
      collection: document.getElementById("collection").value,
      clear: document.getElementById("collection-clear").checked ? "true" : undefined,
    });
  });
  document.getElementById("start-items").addEventListener("submit", (event) => {
    event.preventDefault();
    const items = document.getElementById("items").value.split("\n")
      .map((line) => line.trim()).filter((line) => line !== "");
    start("/api/admin/index/items", {
      collection: document.getElementById("items-collection").value,
      item: items,
    });
  });
}

if (await applyRole()) {
  await wireForms().catch((error) =>
    show(document.getElementById("start-status"), errorBox(error))
  );
  await refreshWhileRunning();
  await outboxState();
} else {
  show(
    document.getElementById("jobs"),
    errorBox("Indexing and import jobs need the admin role; this token has a weaker one."),
  );
}
