/**
 * The collection page's recent changes, live: the newest {@link SHOWN} changes of the
 * collection's feed, newest on top, updated as writes commit. One event stream,
 * `GET /api/changes?tail=50` (the newest 50, then every change after them), so the page
 * never reads the feed from its start; a dropped connection resumes by `Last-Event-ID`
 * (event-stream.js). The stream is closed while the page is hidden and when it is left, and
 * resumed where it was when the page shows again.
 */
import { dataTable, el, fetchLabels, itemLink, show, timeElement, withQuery } from "./workbench.js";
import { followEventStream } from "./event-stream.js";

/** Changes the panel lists. */
const SHOWN = 50;
/** ETag characters shown; the whole one is in the cell's title. */
const ETAG_SHOWN = 12;

/** What the state line says for each connection state. */
const STATE_TEXT = {
  connecting: "Connecting…",
  live: "Live: new changes appear as they are written.",
  restarted: "The changes missed are no longer kept; showing the newest again.",
  paused: "Paused while the page is hidden.",
};

/** Shows and follows `collection`'s recent changes in #changes, its state in #changes-state. */
export function showRecentChanges(collection) {
  const container = document.getElementById("changes");
  const stateLine = document.getElementById("changes-state");
  /** Newest first; each cursor once (a restart may send some again). */
  let changes = [];
  const labels = new Map();
  let follower;

  const setState = (name, detail) => {
    stateLine.dataset.state = name;
    stateLine.className = name === "live" ? "ok" : name === "stopped" ? "bad" : "note";
    if (name === "reconnecting") {
      stateLine.textContent = `Connection lost: reconnecting in ${Math.ceil(detail / 1000)} s…`;
    } else if (name === "stopped") {
      // The API refused the feed: no read right (a collection one may not read is not
      // found, 404), or no feed on this store (501, not retried).
      const message = detail?.message ?? String(detail);
      stateLine.textContent = [401, 403, 404].includes(detail?.status)
        ? `No recent changes: this token may not read the collection's changes (${message}).`
        : `No recent changes: ${message}`;
      if (changes.length === 0) show(container);
    } else stateLine.textContent = STATE_TEXT[name] ?? name;
  };

  const render = () => {
    if (changes.length === 0) {
      show(container, el("p", {}, "No change kept yet; writes appear here as they happen."));
      return;
    }
    const rows = changes.map((change) =>
      el(
        "tr",
        { "data-cursor": change.cursor },
        el("td", {}, timeElement(change.time)),
        el("td", { class: `operation ${change.operation}` }, change.operation),
        el(
          "td",
          { class: "uri" },
          itemLink(collection, change.item, labels.get(change.item) ?? change.item),
        ),
        el("td", {}, change.principal),
        el(
          "td",
          { class: "etag", title: change.etag ?? undefined },
          change.etag === null
            ? "–"
            : change.etag.length > ETAG_SHOWN
            ? `${change.etag.slice(0, ETAG_SHOWN)}…`
            : change.etag,
        ),
      )
    );
    show(
      container,
      dataTable(
        `The newest ${SHOWN} changes at most, newest first`,
        ["Time", "Operation", "Item", "By", "ETag"],
        rows,
        { id: "changes-table", class: "changes" },
      ),
    );
  };

  /** Labels of items not asked for yet; the rows show IRIs until they come. */
  let labelTimer;
  const askLabels = () => {
    clearTimeout(labelTimer);
    labelTimer = setTimeout(async () => {
      const missing = [...new Set(changes.map((change) => change.item))]
        .filter((item) => !labels.has(item));
      if (missing.length === 0) return;
      const names = await fetchLabels(missing, collection);
      for (const item of missing) labels.set(item, names.labels[item]?.value ?? item);
      render();
    }, 100);
  };

  const onEvent = (event) => {
    // An `error` event says why the stream ends (its cursor expired): it reconnects itself.
    if (event.event !== "change") return;
    const change = JSON.parse(event.data);
    if (changes.some((known) => known.cursor === change.cursor)) return;
    changes = [change, ...changes].slice(0, SHOWN);
    render();
    askLabels();
  };

  const path = withQuery("/api/changes", { collection, tail: SHOWN });
  const start = () => {
    follower = followEventStream(path, {
      onEvent,
      onState: setState,
      lastEventId: follower?.lastEventId,
    });
  };
  const pause = () => {
    follower?.stop();
    setState("paused");
  };

  render();
  start();
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) pause();
    else start();
  });
  globalThis.addEventListener("pagehide", () => follower?.stop());
}
