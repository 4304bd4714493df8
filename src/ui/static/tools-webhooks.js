/**
 * The tools page's webhooks (admin): every endpoint's delivery as `GET /api/admin/webhooks`
 * answers it, and its dead letters with a Redeliver button each
 * (`POST /api/admin/webhooks/redeliver?id=`). An endpoint's row shows the fields the answer
 * has (webhook-columns.js), so a field added to the API shows up instead of breaking the page.
 * While something is in motion (an endpoint failing, a dead letter queued) the lists are
 * read again every {@link REFRESH_MS}.
 */
import {
  api,
  apiJson,
  collectionLink,
  dataTable,
  el,
  ensureOk,
  errorBox,
  itemLink,
  show,
  timeElement,
  withQuery,
} from "./workbench.js";
import { endpointColumns } from "./webhook-columns.js";

const REFRESH_MS = 1000;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** An attempt `{at, status, error}` as text: when, what answered, why it failed. */
function attemptCell(attempt) {
  if (!attempt) return "–";
  const status = attempt.status === null ? "no answer" : `HTTP ${attempt.status}`;
  return [
    timeElement(attempt.at),
    ` ${status}`,
    attempt.error ? el("br") : undefined,
    attempt.error ? el("span", { class: "bad" }, attempt.error) : undefined,
  ];
}

/** Any other field's value: times as times, objects as JSON, nothing as a dash. */
function valueCell(value) {
  if (value === null || value === undefined || value === "") return "–";
  if (typeof value === "string" && ISO_TIME.test(value)) return timeElement(value);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function endpointCell(field, endpoint) {
  const value = endpoint[field];
  switch (field) {
    case "collection":
      return el("td", { class: "uri" }, collectionLink(value));
    case "url":
      return el("td", { class: "uri" }, value);
    case "last":
      return el("td", {}, attemptCell(value));
    case "attempts":
      return el("td", { class: value > 0 ? "number bad" : "number" }, String(value));
    default:
      return el("td", typeof value === "number" ? { class: "number" } : {}, valueCell(value));
  }
}

function endpointTable(endpoints) {
  const columns = endpointColumns(endpoints);
  return dataTable(
    "Endpoints",
    columns.map((column) => column.heading),
    endpoints.map((endpoint) =>
      el("tr", {}, columns.map((column) => endpointCell(column.field, endpoint)))
    ),
    { id: "webhook-endpoints-table" },
  );
}

/** A dead letter's row: its change, how it failed, and Redeliver while it is dead. */
function deadLetterRow(letter, refresh) {
  const { change } = letter;
  const status = el(
    "span",
    { class: `state ${letter.state === "dead" ? "bad" : "queued"}` },
    letter.state,
  );
  const button = letter.state === "dead"
    ? el("button", {
      type: "button",
      "aria-label": `Redeliver change ${change.cursor} to ${letter.url}`,
      onclick: async () => {
        button.disabled = true;
        try {
          const response = await api(
            withQuery("/api/admin/webhooks/redeliver", { id: letter.id }),
            {
              method: "POST",
            },
          );
          const queued = await (await ensureOk(response)).json();
          status.textContent = queued.state;
          status.className = "state queued";
          button.remove();
          refresh();
        } catch (error) {
          button.disabled = false;
          button.after(errorBox(error));
        }
      },
    }, "Redeliver")
    : undefined;
  return el(
    "tr",
    { "data-id": letter.id },
    el("td", { class: "uri" }, collectionLink(letter.collection), el("br"), letter.url),
    el(
      "td",
      { class: "uri" },
      `${change.operation} `,
      itemLink(change.collection, change.item),
      el("br"),
      el("small", {}, `cursor ${change.cursor}, `, timeElement(change.time)),
    ),
    el("td", { class: "number" }, String(letter.attempts)),
    el("td", {}, timeElement(letter.deadAt)),
    el("td", {}, attemptCell(letter.last)),
    el("td", {}, status, " ", button),
  );
}

/**
 * Lists the endpoints and dead letters; keeps them current while delivery is in motion.
 * Resolves once the first listing is shown.
 */
export async function showWebhooks() {
  const status = document.getElementById("webhooks-status");
  const endpointsBox = document.getElementById("webhook-endpoints");
  const lettersBox = document.getElementById("webhook-dead-letters");
  let timer;

  async function refresh() {
    clearTimeout(timer);
    let endpoints;
    try {
      endpoints = await apiJson("/api/admin/webhooks");
    } catch (error) {
      // 501 changes-unsupported: this store delivers no webhooks; the API says why.
      show(status, errorBox(error));
      show(endpointsBox);
      show(lettersBox);
      return;
    }
    show(status);
    if (endpoints.length === 0) {
      show(endpointsBox, el("p", {}, "No collection has webhooks."));
      show(lettersBox);
      return;
    }
    const letters = endpoints.flatMap((endpoint) => endpoint.deadLetters ?? []);
    show(endpointsBox, endpointTable(endpoints));
    show(
      lettersBox,
      letters.length === 0 ? el("p", { id: "no-dead-letters" }, "No dead letters.") : dataTable(
        "Dead letters: changes an endpoint refused until it was given up on",
        ["Endpoint", "Change", "Attempts", "Dead since", "Last attempt", "State"],
        letters.map((letter) => deadLetterRow(letter, refresh)),
        { id: "webhook-dead-letters-table" },
      ),
    );
    const moving = letters.some((letter) => letter.state === "queued") ||
      endpoints.some((endpoint) => endpoint.attempts > 0);
    if (moving && !document.hidden) timer = setTimeout(refresh, REFRESH_MS);
  }

  document.getElementById("webhooks-refresh").addEventListener("click", refresh);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
  await refresh();
}
