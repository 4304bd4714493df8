/**
 * The change between two versions of an item, for reading: the removed and the added
 * triples, each a table of subject, predicate and object. IRIs are drawn as the page draws
 * them (`terms.iri`: its label and prefixed name, the full IRI in the title), datatypes
 * shortened (`terms.shorten`); blank nodes keep the labels the API gives (they have no
 * identity across versions, so the API removes and adds every triple holding one).
 */
import { dataTable, el } from "./workbench.js";
import { parseStatement } from "./ntriples.js";
import { COMMON_PREFIXES } from "./prefixes.js";

const XSD_STRING = `${COMMON_PREFIXES.xsd}string`;

/** One term as the graph table shows it. */
function termView(term, terms) {
  if (term.type === "uri") return terms.iri(term.value);
  if (term.type === "bnode") return el("span", { class: "bnode" }, term.value);
  const extra = term.lang
    ? el("span", { class: "lang" }, ` @${term.lang}`)
    : term.datatype && term.datatype !== XSD_STRING
    ? el("span", { class: "datatype", title: term.datatype }, ` ^^${terms.shorten(term.datatype)}`)
    : undefined;
  return el("span", { class: "literal" }, term.value, extra);
}

/** A triple's row; a statement that does not parse is shown whole, as the API wrote it. */
function tripleRow(statement, terms) {
  const parsed = parseStatement(statement);
  if (!parsed) return el("tr", {}, el("td", { colspan: 3, class: "uri" }, statement));
  return el("tr", {}, parsed.map((term) => el("td", {}, termView(term, terms))));
}

/** The triples of one side of the change, or a line saying there are none. */
function side(caption, statements, terms, className) {
  if (statements.length === 0) return el("p", { class: className }, `${caption}: none.`);
  return dataTable(
    `${caption} (${statements.length})`,
    ["Subject", "Predicate", "Object"],
    statements.map((statement) => tripleRow(statement, terms)),
    { class: `triples ${className}` },
  );
}

/**
 * The diff answer (`GET /api/item/diff`) as DOM: a heading, the removed, the added.
 * `terms`: `{iri(iri) → Node, shorten(iri) → text}`, the page's way of showing IRIs.
 */
export function renderDiff(change, terms) {
  return [
    el("h3", { id: "diff-title" }, `Changes from version ${change.from} to version ${change.to}`),
    change.removed.length === 0 && change.added.length === 0
      ? el("p", { class: "note" }, "No change: both versions hold the same triples.")
      : undefined,
    side("Removed", change.removed, terms, "removed"),
    side("Added", change.added, terms, "added"),
  ];
}
