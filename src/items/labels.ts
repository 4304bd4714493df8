/**
 * Labels of many resources in one store query: what a workbench page (hits, facets, an
 * item's graph, a collection's items) shows beside or instead of IRIs. Labels are read from
 * every item graph the reader may read (the union default graph), since a type's or a
 * concept's label often lives in another collection (a vocabulary imported on its own).
 */
import type { Literal } from "n3";
import { chooseLabel, LABEL_PROPERTIES, type LabelCandidate } from "../rdf/labels.ts";
import { iriToSparql } from "../sparql_protocol/terms.ts";
import type { TripleStore } from "../store/triple_store.ts";
import type { QueryScope } from "../sparql_protocol/query_types.ts";

/** Most IRIs one lookup takes: a page's worth. */
export const MAX_LABEL_IRIS = 500;

/** Most label rows read per IRI (every language of every label property). */
const ROWS_PER_IRI = 64;

/** A resource's chosen label. */
export interface ResourceLabel {
  value: string;
  /** The literal's language tag; absent when untagged. */
  language?: string;
  /** The property it was read from. */
  property: string;
}

/** Options of {@link findLabels}. */
export interface LabelOptions {
  /** The reader's languages, best first (`languagesOf`). */
  languages: readonly string[];
  timeoutMs: number;
  /** The row cap of SPARQL queries (`service.query.maxRows`). */
  maxRows: number;
  /** The collections the reader may read (docs/SECURITY.md); unset: all. */
  scope?: QueryScope;
}

/** The label of each of `iris` that has one, by IRI; one SPARQL query. */
export async function findLabels(
  store: TripleStore,
  iris: readonly string[],
  options: LabelOptions,
): Promise<Record<string, ResourceLabel>> {
  const unique = [...new Set(iris)];
  if (unique.length === 0) return {};
  const query = `SELECT ?s ?p ?o WHERE {
  VALUES ?s { ${unique.map(iriToSparql).join(" ")} }
  VALUES ?p { ${LABEL_PROPERTIES.map(iriToSparql).join(" ")} }
  GRAPH ?g { ?s ?p ?o } FILTER(isLiteral(?o))
}`;
  const result = await store.query(query, {
    limit: Math.min(options.maxRows, unique.length * ROWS_PER_IRI),
    timeoutMs: options.timeoutMs,
    scope: options.scope,
  });
  if (result.kind !== "bindings") return {};
  const candidates = new Map<string, LabelCandidate[]>();
  for (const row of result.rows) {
    const [subject, property, object] = [row.get("s"), row.get("p"), row.get("o")];
    if (subject?.termType !== "NamedNode" || property === undefined) continue;
    if (object?.termType !== "Literal") continue;
    const list = candidates.get(subject.value) ?? [];
    list.push({
      property: property.value,
      value: object.value,
      language: (object as Literal).language ?? "",
    });
    candidates.set(subject.value, list);
  }
  const labels: Record<string, ResourceLabel> = {};
  for (const iri of unique) {
    const chosen = chooseLabel(candidates.get(iri) ?? [], options.languages);
    if (!chosen) continue;
    labels[iri] = {
      value: chosen.value,
      ...(chosen.language ? { language: chosen.language } : {}),
      property: chosen.property,
    };
  }
  return labels;
}
