/**
 * What searching several collections' aliases in one request (`index: [a, b]`) needs beyond
 * one alias's search: sort keys that hold in an index that lacks the field, a shard's failure
 * turned into the request's (OpenSearch answers 200 with the other indices' hits), and each
 * hit named by the collection of the index it came from.
 */
import { DomainError } from "../errors/domain_error.ts";
import {
  type CollectionIndexRef,
  isPhysicalIndexOf,
  type SearchRequest,
  type SearchResponse,
} from "../search/search_engine.ts";
import { namedHit } from "../search/merge_parts.ts";
import { physicalPath } from "./physical_fields.ts";

/**
 * Gives each field sort clause of `body` an `unmapped_type` (the field's type where it is
 * mapped, keyword for a keyword sub-field), so an index that lacks the field sorts its hits
 * as missing values (last) instead of failing. `fieldMappings` is `_mapping/field`'s answer
 * merged over the indices.
 */
export function sortAcrossIndices(
  body: Record<string, unknown>,
  request: SearchRequest,
  fieldMappings: Record<string, unknown>,
): void {
  const clauses = body.sort as unknown[];
  (request.sort ?? []).forEach(({ field: logical }, position) => {
    const clause = clauses[position] as Record<string, Record<string, unknown>>;
    const [name] = Object.keys(clause);
    if (name === "_score" || clause[name].unmapped_type !== undefined) return;
    // The clause names the field (physical, or as an earlier layout maps it) or its keyword.
    const mapped = name === physicalPath(logical) || name === logical;
    clause[name].unmapped_type = mapped ? mappedType(fieldMappings, name) : "keyword";
  });
}

function mappedType(fieldMappings: Record<string, unknown>, field: string): string {
  const entry = fieldMappings[field] as { mapping?: Record<string, { type?: string }> } | undefined;
  return Object.values(entry?.mapping ?? {})[0]?.type ?? "keyword";
}

/** A search answer's shard failures, as the problem of the whole search; none: undefined. */
export function shardFailure(answer: unknown): DomainError | undefined {
  const shards = (answer as { _shards?: { failed?: number; failures?: unknown[] } })._shards;
  if (!shards?.failed) return undefined;
  const reasons = (shards.failures ?? []).map((failure) => {
    const { index, reason } = failure as { index?: string; reason?: { reason?: string } };
    return `${index ?? "an index"}: ${reason?.reason ?? "failed"}`;
  });
  return new DomainError("search-error", {
    detail: `OpenSearch: the search failed in ${shards.failed} shard(s): ${reasons.join("; ")}`,
  });
}

/**
 * Names each hit of `response` by the collection of the index OpenSearch found it in (the
 * physical index behind a collection's alias), read from `answer`'s hits in the same order.
 */
export function nameHitsByIndex(
  answer: unknown,
  response: SearchResponse,
  indices: readonly CollectionIndexRef[],
): SearchResponse {
  const found = (answer as { hits: { hits: { _index?: string }[] } }).hits.hits;
  response.hits = response.hits.map((hit, position) => {
    const physical = found[position]?._index ?? "";
    const index = indices.find((one) =>
      one.indexName === physical || isPhysicalIndexOf(one.indexName, physical)
    );
    return namedHit(hit, index?.collection ?? hit.document.collection);
  });
  return response;
}
