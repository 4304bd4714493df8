/**
 * `/api/search` (docs/api.md, Search): a simple search as query parameters over one
 * collection, several or a workspace's (`search_scope.ts` says which), or an OpenSearch
 * query DSL body, which passes the DSL gate (src/search_opensearch/dsl_gate.ts) first. Windows beyond
 * the limits are clamped by the engine, never refused.
 *
 * `filter=field:value` splits at the first colon, so values may hold colons (IRIs:
 * `filter=types:https://schema.org/Book`). A field name that holds colons itself (a CURIE
 * from a JSON-LD context) is written in double quotes: `filter="dct:creator":Alice`.
 * `sort=field`, `sort=field:asc` or `sort=field:desc` splits at the last colon, so
 * `sort=dct:creator:desc` works; `sort="dct:creator"` (quoted, ascending) too.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { readBodyText } from "../http/body.ts";
import { prefixesOf } from "../fields/field_paths.ts";
import { expandFilter } from "../search/prefixed_names.ts";
import { declaredFields, refuseUnknownFields } from "../search/field_check.ts";
import {
  rawSearch,
  type SearchAnyFilter,
  type SearchFilter,
  type SearchRange,
  type SearchRequest,
  type SearchSort,
} from "../search/search_engine.ts";
import { searchItems, searchItemsWithDsl } from "./contracts/search.ts";
import { DomainError } from "../errors/domain_error.ts";
import { dslSearchContract } from "./access.ts";
import { searchedCollections } from "./search_scope.ts";

/** The search routes. */
export function searchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  handle(app, searchItems, async (c) => {
    const query = readQuery(c, searchItems);
    const collections = searchedCollections(c, deps, query.collection, query.workspace)
      .map((uri) => deps.searchIndexes(uri));
    const prefixes = searchPrefixes(collections.map((one) => one.context));
    const request: SearchRequest = {
      q: query.q,
      language: query.language,
      filters: query.filter.map((raw) => expandFilter(parseFilter(raw), prefixes)),
      anyOf: groupByField(
        query.any.map((raw) => expandFilter(parseFilter(raw, "any"), prefixes)),
      ),
      ranges: query.range.map(parseRange),
      sort: query.sort.map(parseSort),
      from: query.from,
      size: query.size,
      facets: query.facet.length > 0 ? [...new Set(query.facet)] : undefined,
      facetSize: query.facetSize,
      highlight: query.highlight,
    };
    const indices = collections.map((one) => one.ref);
    const answer = await deps.search.searchMany(indices, request);
    // A field any searched collection declares is known.
    const declared = new Set(
      collections.flatMap((one) => [...declaredFields(one.ref, one.fields, one.context)]),
    );
    await refuseUnknownFields(deps.search, indices, declared, request, answer.total);
    return c.json(answer);
  });

  handle(app, dslSearchContract(deps.config.service.search.opensearch.dsl.role), async (c) => {
    const dsl = deps.config.service.search.opensearch.dsl;
    if (dsl.role === "none") {
      throw new DomainError("search-dsl-disabled", {
        detail: "This service takes no query DSL (service.search.opensearch.dsl.role is none); " +
          "use GET /api/search.",
      });
    }
    const { collection } = readQuery(c, searchItemsWithDsl);
    const index = deps.searchIndexes(collection).ref;
    const text = await readBodyText(c, deps.config.service.http.maxBodyBytes);
    const body = parseQueryBody(text);
    const result = await rawSearch(deps.search, index, body);
    return c.json(result.response);
  });

  return app;
}

/**
 * The prefixes a search's prefixed names expand with: the well-known ones and every searched
 * collection's context terms (theirs win; between two contexts, the collection given first).
 */
function searchPrefixes(contexts: unknown[]): Record<string, string> {
  const wellKnown = prefixesOf(undefined);
  const merged = { ...wellKnown };
  for (const context of contexts.toReversed()) {
    for (const [name, iri] of Object.entries(prefixesOf(context))) {
      if (iri !== wellKnown[name]) merged[name] = iri;
    }
  }
  return merged;
}

/** `field:value`, or `"field:with:colons":value` (the parameter `name` for errors). */
export function parseFilter(raw: string, name = "filter"): SearchFilter {
  const quoted = splitQuotedField(raw, name);
  if (quoted) return { field: quoted.field, value: quoted.rest };
  const colon = raw.indexOf(":");
  if (colon <= 0) throw invalidParameter(name, raw, "expected field:value");
  return { field: raw.slice(0, colon), value: raw.slice(colon + 1) };
}

/** `any` values of one field together, fields in the order first named. */
function groupByField(filters: SearchFilter[]): SearchAnyFilter[] {
  const byField = new Map<string, string[]>();
  for (const { field, value } of filters) {
    byField.set(field, [...byField.get(field) ?? [], value]);
  }
  return [...byField].map(([field, values]) => ({ field, values }));
}

/** `field:from..to`, either bound optional; written like a filter. */
export function parseRange(raw: string): SearchRange {
  const { field, value } = parseFilter(raw, "range");
  const dots = value.indexOf("..");
  if (dots < 0) throw invalidParameter("range", raw, "expected field:from..to");
  const gte = value.slice(0, dots);
  const lte = value.slice(dots + 2);
  if (gte === "" && lte === "") {
    throw invalidParameter("range", raw, "give at least one bound of from..to");
  }
  return {
    field,
    ...(gte === "" ? {} : { gte }),
    ...(lte === "" ? {} : { lte }),
  };
}

/** `field`, `field:asc`, `field:desc`, or the field in double quotes. */
export function parseSort(raw: string): SearchSort {
  const quoted = splitQuotedField(raw, "sort");
  let field: string;
  let order: string;
  if (quoted) {
    field = quoted.field;
    order = quoted.rest;
  } else {
    // The order comes last, so the field is everything before the last colon.
    const colon = raw.lastIndexOf(":");
    [field, order] = colon < 0 ? [raw, "asc"] : [raw.slice(0, colon), raw.slice(colon + 1)];
  }
  if (field === "") throw invalidParameter("sort", raw, "expected field:asc or field:desc");
  if (order === "") order = "asc";
  if (order !== "asc" && order !== "desc") {
    throw invalidParameter("sort", raw, "the order must be asc or desc");
  }
  return { field, order };
}

/** `"field":rest` → the field and what follows the colon; undefined when not quoted. */
function splitQuotedField(raw: string, name: string): { field: string; rest: string } | undefined {
  if (!raw.startsWith('"')) return undefined;
  const close = raw.indexOf('"', 1);
  const field = raw.slice(1, close);
  if (close < 0 || field === "") {
    throw invalidParameter(name, raw, 'a quoted field name needs its closing "');
  }
  const after = raw.slice(close + 1);
  if (after !== "" && !after.startsWith(":")) {
    throw invalidParameter(name, raw, "expected : after the quoted field name");
  }
  if (name !== "sort" && after === "") throw invalidParameter(name, raw, "expected field:value");
  return { field, rest: after.slice(1) };
}

function parseQueryBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new DomainError("invalid-json", {
      detail: `The query body is not JSON: ${
        error instanceof Error ? error.message : String(error)
      }`,
    });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new DomainError("invalid-search-query", {
      detail: "The query body must be a JSON object (OpenSearch query DSL).",
    });
  }
  return body as Record<string, unknown>;
}

function invalidParameter(name: string, value: string, message: string): DomainError {
  return new DomainError("invalid-parameter", {
    detail: `The parameter '${name}' is malformed (${message}); got ${JSON.stringify(value)}.`,
    errors: [{ path: name, message }],
  });
}
