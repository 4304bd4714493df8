/**
 * `/ui/job?id=…`: one indexing job, polled until it ends: a progress bar over the items
 * processed, the counts, and the errors of the items that failed. `/ui/job?kind=import&id=…`:
 * one import job, followed the same way.
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
/** `kind=import`: a bulk import job; otherwise an indexing job. */
const isImport = pageParameters().get("kind") === "import";

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

/**
 * An import job: it has no total while its body streams in, so the bar is indeterminate
 * until it ends; the counts are the items written, found existing and refused.
 */
function showImport(job) {
  const progress = document.getElementById("job-progress");
  const ended = job.state === "succeeded" || job.state === "failed";
  if (ended) progress.value = 100;
  else progress.removeAttribute("value");
  const done = job.written + job.existing + job.refused;
  document.getElementById("job-percent").textContent = ended
    ? `100% · ${done} item(s) · ${job.state}`
    : `${done} item(s) so far · ${job.state}`;
  show(
    document.getElementById("job-info"),
    el("dt", {}, "Job"),
    el("dd", { class: "uri" }, job.id),
    el("dt", {}, "Import into"),
    el("dd", { class: "uri" }, job.collection),
    el("dt", {}, "Format"),
    el("dd", {}, `${job.format}, ${job.mode}${job.itemsBy ? `, items by ${job.itemsBy}` : ""}`),
    el("dt", {}, "State"),
    el("dd", { id: "job-state", class: `state ${job.state}` }, job.state),
    el("dt", {}, "Started"),
    el("dd", {}, timeElement(job.startedAt)),
    el("dt", {}, "Finished"),
    el("dd", {}, timeElement(job.finishedAt)),
  );
  show(
    document.getElementById("job-counts"),
    [["Bytes read", job.bytesRead], ["Items", job.items], ["Written", job.written], [
      "Existing",
      job.existing,
    ], ["Refused", job.refused]].flatMap(([name, value]) => [
      el("dt", {}, name),
      el("dd", { "data-count": name.toLowerCase() }, value),
    ]),
  );
  const errors = job.errors ?? [];
  show(
    document.getElementById("job-errors"),
    errors.length === 0 ? el("p", {}, "None.") : dataTable(
      "",
      ["Item", "Line", "Type", "Message"],
      errors.map((error) =>
        el(
          "tr",
          {},
          el("td", { class: "uri" }, error.item ?? "–"),
          el("td", { class: "number" }, error.line ?? "–"),
          el("td", {}, error.type ?? "–"),
          el("td", {}, error.message, error.count > 1 ? ` (${error.count} times)` : ""),
        )
      ),
    ),
  );
}

async function poll() {
  try {
    const path = isImport ? "/api/admin/import/jobs/" : "/api/admin/index/jobs/";
    const job = await apiJson(`${path}${encodeURIComponent(id)}`);
    if (isImport) showImport(job);
    else showJob(job);
    if (job.state === "queued" || job.state === "running") setTimeout(poll, POLL_MS);
  } catch (error) {
    show(document.getElementById("job-errors"), errorBox(error));
  }
}

if (id) {
  const title = `${isImport ? "Import" : "Indexing"} job ${id}`;
  document.querySelector("h1").textContent = title;
  document.title = `${title} · RDF content service`;
  await poll();
} else {
  show(
    document.getElementById("job-errors"),
    errorBox("Name a job: /ui/job?id=<id>."),
    el("a", { href: withQuery("/ui/jobs", {}) }, "All jobs"),
  );
}
