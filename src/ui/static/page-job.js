/**
 * `/ui/job?id=…`: one indexing job, polled until it ends: a progress bar over the items
 * processed, the counts, and the errors of the items that failed.
 */
import {
  apiJson,
  dataTable,
  el,
  errorBox,
  pageParameters,
  show,
  timeElement,
  withQuery,
} from "./workbench.js";

const POLL_MS = 500;
const id = pageParameters().get("id") ?? "";

function showJob(job) {
  const percent = job.total > 0
    ? Math.floor((job.processed / job.total) * 100)
    : job.state === "succeeded"
    ? 100
    : 0;
  const progress = document.getElementById("job-progress");
  progress.value = percent;
  progress.setAttribute("aria-valuetext", `${percent}%`);
  document.getElementById("job-percent").textContent =
    `${percent}% · ${job.processed} of ${job.total} · ${job.state}`;
  const scope = job.scope.type === "items"
    ? `${job.scope.items?.length ?? 0} item(s) of ${job.scope.uri}`
    : `${job.scope.type} ${job.scope.uri}`;
  show(
    document.getElementById("job-info"),
    el("dt", {}, "Job"),
    el("dd", { class: "uri" }, job.id),
    el("dt", {}, "Scope"),
    el("dd", {}, scope, job.clear ? " (rebuild from nothing)" : ""),
    el("dt", {}, "State"),
    el("dd", { id: "job-state", class: `state ${job.state}` }, job.state),
    el("dt", {}, "Started"),
    el("dd", {}, timeElement(job.startedAt)),
    el("dt", {}, "Finished"),
    el("dd", {}, timeElement(job.finishedAt)),
  );
  show(
    document.getElementById("job-counts"),
    ["indexed", "deleted", "failed"].flatMap((name) => [
      el("dt", {}, name[0].toUpperCase() + name.slice(1)),
      el("dd", {}, job[name]),
    ]),
  );
  const errors = job.errors ?? [];
  show(
    document.getElementById("job-errors"),
    errors.length === 0 ? el("p", {}, "None.") : dataTable(
      "",
      ["Item", "Message"],
      errors.map((error) =>
        el("tr", {}, el("td", { class: "uri" }, error.item ?? "–"), el("td", {}, error.message))
      ),
    ),
  );
}

async function poll() {
  try {
    const job = await apiJson(`/api/admin/index/jobs/${encodeURIComponent(id)}`);
    showJob(job);
    if (job.state === "queued" || job.state === "running") setTimeout(poll, POLL_MS);
  } catch (error) {
    show(document.getElementById("job-errors"), errorBox(error));
  }
}

if (id) {
  document.querySelector("h1").textContent = `Indexing job ${id}`;
  await poll();
} else {
  show(
    document.getElementById("job-errors"),
    errorBox("Name a job: /ui/job?id=<id>."),
    el("a", { href: withQuery("/ui/jobs", {}) }, "All jobs"),
  );
}
