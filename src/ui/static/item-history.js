/**
 * The item page's History section (issue 41): the item's versions newest first (number,
 * time, who, operation, short ETag), read a page at a time when the section is opened (so
 * the item's own first render never waits for it), "Older versions" following the API's
 * `next` link; two radio columns choose the versions to compare (by default the previous
 * and the newest); "View" shows a version's graph read-only; "Restore" (for those who may
 * write the collection) writes a version back, conditional on the ETag the page shows, and
 * brings a deleted item back.
 */
import { dataTable, el, errorBox, show, timeElement } from "./workbench.js";
import { historyPage, restoreVersion, versionDiff, versionTurtle } from "./item-history-api.js";
import { renderDiff } from "./version-diff.js";
import { highlightTurtle } from "./turtle.js";

/** How much of a version's hash (its ETag) the list shows; the title holds all of it. */
const SHORT_ETAG = 12;

/**
 * Wires the section. `options`: `collection`, `item`; `terms` (`{iri, shorten}`: how the
 * page shows an IRI, as a node and as text); `mayRestore`
 * (a promise of whether the caller may write the collection); `etag()` the item's current
 * ETag as the page shows it (undefined for a deleted item); `reloadItem()` reads the item
 * again. Returns `{open}`, which opens the section (and so loads it).
 */
export function wireItemHistory(options) {
  const { collection, item } = options;
  const details = document.getElementById("history-details");
  const box = document.getElementById("versions");
  const status = document.getElementById("history-status");
  const older = document.getElementById("history-older");
  const compare = document.getElementById("history-compare");
  const diffBox = document.getElementById("version-diff");
  const viewBox = document.getElementById("version-view");
  /** The versions read so far, newest first, and the URL of the next (older) page. */
  let versions = [];
  let next = null;
  let mayRestore = false;
  let loading;

  /** The version number chosen in one radio column, if any. */
  const chosen = (name) => box.querySelector(`input[name="${name}"]:checked`)?.value;

  function radio(name, label, version, checked) {
    return el(
      "label",
      { class: "pick" },
      el("input", { type: "radio", name, value: version, checked }),
      el("span", { class: "visually-hidden" }, `${label} version ${version}`),
    );
  }

  function row(version, index, picked) {
    const deleted = version.operation === "delete";
    // The newest version of an item that is not deleted is what the item holds now.
    const current = index === 0 && !deleted;
    const number = version.version;
    return el(
      "tr",
      { "data-version": number, class: current ? "current" : undefined },
      el("td", {}, radio("diff-from", "From", number, picked.from === String(number))),
      el("td", {}, radio("diff-to", "To", number, picked.to === String(number))),
      el("td", { class: "number" }, number),
      el("td", {}, timeElement(version.time)),
      el("td", { class: "uri" }, version.principal),
      el("td", { class: "operation" }, version.operation, current ? " (current)" : ""),
      el(
        "td",
        { class: "uri", title: version.hash ?? "" },
        version.hash ? `${version.hash.slice(0, SHORT_ETAG)}…` : "–",
      ),
      el(
        "td",
        { class: "actions" },
        deleted ? undefined : el("button", {
          type: "button",
          "aria-label": `View version ${number}`,
          onclick: () => view(version),
        }, "View"),
        deleted || current || !mayRestore ? undefined : el("button", {
          type: "button",
          "aria-label": `Restore version ${number}`,
          onclick: () => restore(version),
        }, "Restore"),
      ),
    );
  }

  function render() {
    // Keep the reader's choice across pages; default: the previous and the newest.
    const picked = {
      from: chosen("diff-from") ?? String(versions[1]?.version ?? versions[0]?.version),
      to: chosen("diff-to") ?? String(versions[0]?.version),
    };
    if (versions.length === 0) {
      show(
        box,
        el(
          "p",
          { class: "note" },
          "No versions recorded: the item was written before history was kept; its next " +
            "write records its first version.",
        ),
      );
    } else {
      show(
        box,
        dataTable(
          `${versions.length} version(s) listed, newest first${next ? "; older ones follow" : ""}`,
          ["From", "To", "Version", "Time", "By", "Operation", "ETag", "Actions"],
          versions.map((version, index) => row(version, index, picked)),
          { class: "versions" },
        ),
      );
    }
    older.hidden = !next;
    compare.hidden = versions.length < 2;
  }

  /** Reads the newest page again (after a restore, or when opened). */
  async function reload() {
    show(box, el("p", {}, "Loading…"));
    try {
      mayRestore = await options.mayRestore;
      const page = await historyPage(collection, item);
      versions = page.versions;
      next = page.next;
      box.replaceChildren();
      render();
    } catch (error) {
      versions = [];
      next = null;
      older.hidden = compare.hidden = true;
      show(box, errorBox(error));
    }
  }

  async function loadOlder() {
    older.disabled = true;
    try {
      const page = await historyPage(collection, item, next);
      versions = [...versions, ...page.versions];
      next = page.next;
      render();
    } catch (error) {
      show(status, errorBox(error));
    } finally {
      older.disabled = false;
    }
  }

  async function showDiff() {
    const from = chosen("diff-from");
    const to = chosen("diff-to");
    if (!from || !to) {
      show(diffBox, errorBox("Choose a version in each column, From and To."));
      return;
    }
    show(diffBox, el("p", {}, "Comparing…"));
    try {
      show(diffBox, renderDiff(await versionDiff(collection, item, from, to), options.terms));
    } catch (error) {
      show(diffBox, errorBox(error));
    }
  }

  async function view(version) {
    show(viewBox, el("p", {}, `Reading version ${version.version}…`));
    try {
      const turtle = await versionTurtle(collection, item, version.version);
      show(
        viewBox,
        el("h3", { id: "version-view-title" }, `Version ${version.version} (read-only)`),
        el(
          "p",
          { class: "note" },
          `${version.operation} by ${version.principal}, `,
          timeElement(version.time),
          `, ${version.tripleCount} triple(s).`,
        ),
        el(
          "pre",
          { class: "code", tabindex: 0, "aria-labelledby": "version-view-title" },
          highlightTurtle(turtle),
        ),
        el("button", { type: "button", onclick: () => show(viewBox) }, "Close"),
      );
    } catch (error) {
      show(viewBox, errorBox(error));
    }
  }

  /**
   * A deleted item has no ETag to make the restore conditional on: check instead that its
   * newest version is still the delete this page shows (only the moment between this read
   * and the write is left unguarded).
   */
  async function stillDeleted() {
    const page = await historyPage(collection, item);
    return page.versions[0]?.version === versions[0]?.version;
  }

  /** Someone wrote the item since this page read it: say so, and show what it holds now. */
  async function changedMeanwhile(reason) {
    await options.reloadItem();
    await reload();
    show(
      status,
      errorBox(
        `Not restored: the item changed since this page read it (${reason}). The page ` +
          "now shows the current item and its history; restore again if you still want to.",
      ),
    );
  }

  async function restore(version) {
    const deleted = versions[0]?.operation === "delete";
    const question = deleted
      ? `Restore version ${version.version}? The deleted item comes back with its content.`
      : `Restore version ${version.version}? Its content becomes the item's new version; ` +
        "the current content stays in the history.";
    if (!confirm(question)) return;
    show(status, el("p", {}, `Restoring version ${version.version}…`));
    try {
      if (deleted && !await stillDeleted()) {
        await changedMeanwhile("it was written after its deletion");
        return;
      }
      await restoreVersion(collection, item, version.version, options.etag());
      await options.reloadItem();
      await reload();
      show(
        status,
        el(
          "p",
          { class: "ok" },
          `Restored version ${version.version} as version ${versions[0]?.version}.`,
        ),
      );
    } catch (error) {
      if (error.status === 412) await changedMeanwhile(error.message);
      else show(status, errorBox(error));
    }
  }

  older.addEventListener("click", loadOlder);
  compare.addEventListener("click", showDiff);
  details.addEventListener("toggle", () => {
    if (details.open) loading ??= reload();
  });
  return {
    /** Opens the section; resolves once its first page is shown. */
    open() {
      details.open = true;
      loading ??= reload();
      return loading;
    },
  };
}
