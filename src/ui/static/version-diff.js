/**
 * The change between two versions of an item, for reading: the removed and the added
 * triples, each a table of subject, predicate and object, IRIs shortened by the page's
 * `shorten` (the full IRI in the title), blank nodes with the labels the API gives (they
 * have no identity across versions, so the API removes and adds every triple holding one).
 */
import { dataTable, el } from "./workbench.js";
import { parseStatement } from "./ntriples.js";
import { COMMON_PREFIXES } from "./prefixes.js";

const XSD_STRING = `${COMMON_PREFIXES.xsd}string`;

/** One term as the graph table shows it. */
function termView(term, shorten) {
  if (term.type === "uri") {
    return el("span", { class: "iri", title: term.value }, shorten(term.value));
  }
  if (term.type === "bnode") return el("span", { class: "bnode" }, term.value);
  const extra = term.lang
    ? el("span", { class: "lang" }, ` @${term.lang}`)
    : term.datatype && term.datatype !== XSD_STRING
    ? el("span", { class: "datatype", title: term.datatype }, ` ^^${shorten(term.datatype)}`)
    : undefined;
  return el("span", { class: "literal" }, term.value, extra);
}

/** A triple's row; a statement that does not parse is shown whole, as the API wrote it. */
function tripleRow(statement, shorten) {
  const terms = parseStatement(statement);
  if (!terms) return el("tr", {}, el("td", { colspan: 3, class: "uri" }, statement));
  return el("tr", {}, terms.map((term) => el("td", {}, termView(term, shorten))));
}

/** The triples of one side of the change, or a line saying there are none. */
function side(caption, statements, shorten, className) {
  if (statements.length === 0) return el("p", { class: className }, `${caption}: none.`);
  return dataTable(
    `${caption} (${statements.length})`,
    ["Subject", "Predicate", "Object"],
    statements.map((statement) => tripleRow(statement, shorten)),
    { class: `triples ${className}` },
  );
}

/** The diff answer (`GET /api/item/diff`) as DOM: a heading, the removed, the added. */
export function renderDiff(change, shorten) {
  return [
    el("h3", { id: "diff-title" }, `Changes from version ${change.from} to version ${change.to}`),
    change.removed.length === 0 && change.added.length === 0
      ? el("p", { class: "note" }, "No change: both versions hold the same triples.")
      : undefined,
    side("Removed", change.removed, shorten, "removed"),
    side("Added", change.added, shorten, "added"),
  ];
}
