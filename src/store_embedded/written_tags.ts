/**
 * Language tags as written on the fallback path. Oxigraph lower-cases every tag it loads or
 * parses (`"colour"@en-US` answers as `"colour"@en-us`, `lang()` as `"en-us"`), while the
 * quad tables hold the tags as written. The worker sends, beside oxigraph's answer, the
 * written spellings of the tags of the quads it loaded and of the query's own literals, and
 * which variables the query binds to `lang(…)` directly (projection or BIND); the answer is
 * given those spellings back here. Only literals and such `lang` values are restored: a
 * string built from a tag (`CONCAT(lang(?o))`, `STR(?o)` of a tag) keeps oxigraph's case.
 * Comparisons (`=`, `sameTerm`, `langMatches`) happen inside oxigraph on lower-cased tags,
 * so they stay case-insensitive as SPARQL has them.
 *
 * The compiled path reads terms from the dictionary as stored and needs none of this.
 */
// @ts-types="@types/sparqljs"
import type sparqljs from "sparqljs";
// @ts-types="@types/n3"
import type { Quad, Term } from "n3";
import { literal, TagSpellings } from "../rdf/language_tags.ts";

/** A quoted literal's tag in a query's text (`"…"@en-US`, `'…'@en-US`). */
const QUERY_TAG = /["']@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*)/g;

/** The tags the query writes on its literals, as written (sparqljs lower-cases them). */
export function queryTags(sparql: string): string[] {
  return [...sparql.matchAll(QUERY_TAG)].map((match) => match[1]);
}

/** The variables `query` binds to `lang(…)` itself, in its projection or a BIND. */
export function langVariables(query: sparqljs.SparqlQuery): string[] {
  const found = new Set<string>();
  const isLang = (expression: unknown) =>
    (expression as { type?: string; operator?: string } | undefined)?.type === "operation" &&
    (expression as { operator: string }).operator.toLowerCase() === "lang";
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const record = node as Record<string, unknown>;
    const variable = record.variable as { termType?: string; value?: string } | undefined;
    if (variable?.termType === "Variable" && isLang(record.expression)) {
      found.add(variable.value!);
    }
    for (const value of Object.values(record)) visit(value);
  };
  visit(query);
  return [...found];
}

/** An answer's spellings and `lang` variables, as the worker sends them. */
export interface WrittenTags {
  tags: string[];
  langVariables: string[];
}

/** Restores rows of bindings (see the module comment). */
export function restoreBindings(
  rows: Map<string, Term>[],
  written: WrittenTags,
): Map<string, Term>[] {
  const spellings = TagSpellings.of(written.tags);
  if (spellings.empty) return rows;
  const langs = new Set(written.langVariables);
  for (const row of rows) {
    for (const [name, term] of row) {
      if (langs.has(name) && term.termType === "Literal" && term.value !== "") {
        const spelled = spellings.spell(term.value);
        if (spelled !== term.value) row.set(name, literal(spelled) as unknown as Term);
      } else {
        row.set(name, spellings.restoreTerm(term));
      }
    }
  }
  return rows;
}

/** Restores quads (see the module comment). */
export function restoreQuads(quads: Quad[], written: WrittenTags): Quad[] {
  const spellings = TagSpellings.of(written.tags);
  return spellings.empty ? quads : quads.map((quad) => spellings.restoreQuad(quad));
}
