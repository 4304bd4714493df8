/**
 * The problem catalogue: every problem the service raises, by its public slug, with its kind
 * (which the HTTP edge turns into a status) and its title.
 *
 * This is the one place a problem's kind and title are written. Throw sites name the slug and
 * give only what varies (detail, field errors, extra members): `new DomainError("item-exists",
 * { detail })`. A slug is a {@link ProblemSlug}, so an unknown one does not type-check, and a slug
 * has one title because it is one key here. docs/api.md's problem table lists the same slugs,
 * statuses and titles (`tests/unit/problem_catalogue_test.ts` holds the two together).
 */
/** What kind of failure an error is; the HTTP edge gives each kind its status. */
export type ErrorKind =
  /** The request's input is wrong (a parameter, a body line, a pointer): fix it and retry. */
  | "invalid-input"
  /** The request carries no valid credentials. */
  | "unauthenticated"
  /** The caller may not do this (too weak a role, not a local caller, switched off). */
  | "forbidden"
  /** What the request names does not exist. */
  | "not-found"
  /** No representation the request accepts can be given. */
  | "not-acceptable"
  /** The request clashes with the current state (an item exists, a job runs). */
  | "conflict"
  /** The caller's expected version is not the current one. */
  | "precondition-failed"
  /** The input exceeds a configured size limit. */
  | "too-large"
  /** The input's format is not one the service reads. */
  | "unsupported-media"
  /** The input is well-formed but breaks a rule (shapes, canonicalization budget). */
  | "unprocessable"
  /** A backend (store, search engine) answered something the service cannot use. */
  | "backend-failed"
  /** A backend cannot be reached, or the service is stopping: retry later. */
  | "unavailable"
  /** The data directory takes no writes (disk full, read-only file system). */
  | "insufficient-storage"
  /** The work did not finish within its time budget. */
  | "timeout"
  /** This engine does not offer the operation. */
  | "not-implemented"
  /** The service itself is wrong (a broken invariant). */
  | "internal";

/** What the catalogue knows of a problem. */
export interface ProblemFacts {
  kind: ErrorKind;
  /** The problem type's short summary: the same for every occurrence (RFC 9457 §3.1.3). */
  title: string;
}

/** Every problem, by slug (its type is `/problems/<slug>`). */
export const PROBLEMS = {
  // invalid-input
  "missing-parameter": { kind: "invalid-input", title: "Missing parameter" },
  "invalid-iri": { kind: "invalid-input", title: "Invalid IRI" },
  "invalid-boolean": { kind: "invalid-input", title: "Invalid boolean" },
  "invalid-parameter": { kind: "invalid-input", title: "Invalid parameter" },
  "empty-body": { kind: "invalid-input", title: "Empty body" },
  "rdf-syntax": { kind: "invalid-input", title: "Malformed RDF" },
  "relative-iri": { kind: "invalid-input", title: "Relative IRI without a base" },
  "invalid-jsonld": { kind: "invalid-input", title: "Invalid JSON-LD" },
  "invalid-json": { kind: "invalid-input", title: "Invalid JSON" },
  "invalid-encoding": { kind: "invalid-input", title: "Body is not UTF-8" },
  "remote-context-refused": { kind: "invalid-input", title: "Remote JSON-LD context refused" },
  "no-root-subject": { kind: "invalid-input", title: "No root subject" },
  "several-root-subjects": { kind: "invalid-input", title: "Several root subjects" },
  "blank-root-subject": { kind: "invalid-input", title: "Item needs a URI" },
  "item-not-described": { kind: "invalid-input", title: "Body does not describe the item" },
  "named-graphs-not-allowed": { kind: "invalid-input", title: "Named graphs are not allowed" },
  "uri-not-in-body": { kind: "invalid-input", title: "URI not in body" },
  "invalid-sort": { kind: "invalid-input", title: "Field cannot be sorted" },
  "invalid-search-query": { kind: "invalid-input", title: "Invalid search query" },
  "search-query-refused": { kind: "invalid-input", title: "Search query refused" },
  "missing-query": { kind: "invalid-input", title: "Missing query" },
  "invalid-sparql": { kind: "invalid-input", title: "Invalid SPARQL" },
  "query-failed": { kind: "invalid-input", title: "Query failed" },
  "sparql-update-refused": { kind: "invalid-input", title: "Updates are not allowed" },
  "sparql-service-refused": { kind: "invalid-input", title: "Federated queries are not allowed" },
  "reserved-graph": { kind: "invalid-input", title: "Reserved graph" },
  "missing-file": { kind: "invalid-input", title: "Missing file" },
  "ambiguous-file": { kind: "invalid-input", title: "Which file?" },
  "invalid-multipart": { kind: "invalid-input", title: "Malformed multipart body" },
  "invalid-term": { kind: "invalid-input", title: "Term cannot be stored" },
  "invalid-literal": { kind: "invalid-input", title: "Invalid literal" },
  "invalid-settings": { kind: "invalid-input", title: "Invalid settings" },
  "graph-name-not-iri": { kind: "invalid-input", title: "Graph name is not an IRI" },
  "graph-not-contiguous": { kind: "invalid-input", title: "Graph split in two" },
  "unknown-field": { kind: "invalid-input", title: "Unknown field" },
  // unauthenticated
  "unauthorized": { kind: "unauthenticated", title: "Authentication required" },
  // forbidden
  "forbidden": { kind: "forbidden", title: "Role too weak" },
  "foreign-caller": { kind: "forbidden", title: "Only local callers without access tokens" },
  "search-dsl-disabled": { kind: "forbidden", title: "Query DSL switched off" },
  // not-found
  "collection-not-found": { kind: "not-found", title: "Collection not found" },
  "workspace-not-found": { kind: "not-found", title: "Workspace not found" },
  "item-not-found": { kind: "not-found", title: "Item not found" },
  "job-not-found": { kind: "not-found", title: "Job not found" },
  "endpoint-not-found": { kind: "not-found", title: "SPARQL endpoint not found" },
  "search-index-not-found": { kind: "not-found", title: "Search index not found" },
  "asset-not-found": { kind: "not-found", title: "File not found" },
  "not-found": { kind: "not-found", title: "Not found" },
  // not-acceptable
  "not-acceptable": { kind: "not-acceptable", title: "Not acceptable" },
  "not-expressible": { kind: "not-acceptable", title: "Not expressible in this format" },
  // conflict
  "item-exists": { kind: "conflict", title: "Item already exists" },
  "indexing-running": { kind: "conflict", title: "Indexing is running" },
  "import-running": { kind: "conflict", title: "An import of this collection is running" },
  "rebuild-not-active": { kind: "conflict", title: "No such rebuild" },
  "collection-exists": { kind: "conflict", title: "The collection exists" },
  "workspace-exists": { kind: "conflict", title: "The workspace exists" },
  "index-in-use": { kind: "conflict", title: "The search index is in use" },
  "collection-from-config": {
    kind: "conflict",
    title: "The collection is configured in customer.yml",
  },
  "collection-not-empty": { kind: "conflict", title: "The collection holds items" },
  // precondition-failed
  "precondition-failed": { kind: "precondition-failed", title: "Precondition failed" },
  // too-large
  "body-too-large": { kind: "too-large", title: "Request body too large" },
  "query-too-large": { kind: "too-large", title: "Query too large" },
  // unsupported-media
  "unsupported-media-type": { kind: "unsupported-media", title: "Unsupported media type" },
  // unprocessable
  "shacl-violation": {
    kind: "unprocessable",
    title: "The item does not conform to the collection's shapes",
  },
  "canonicalization-limit": { kind: "unprocessable", title: "Graph too complex to canonicalize" },
  "query-too-broad": { kind: "unprocessable", title: "Query too broad" },
  // internal
  "internal-error": { kind: "internal", title: "Internal server error" },
  "invalid-index-name": { kind: "internal", title: "Invalid index name" },
  // not-implemented
  "not-implemented": { kind: "not-implemented", title: "Not implemented" },
  // backend-failed
  "store-error": { kind: "backend-failed", title: "Triple store error" },
  "search-error": { kind: "backend-failed", title: "Search failed" },
  "store-incomplete-answer": { kind: "backend-failed", title: "Triple store answer incomplete" },
  // unavailable
  "store-unavailable": { kind: "unavailable", title: "Triple store unavailable" },
  "search-unavailable": { kind: "unavailable", title: "Search unavailable" },
  "write-outcome-unknown": { kind: "unavailable", title: "Write outcome unknown" },
  "query-engine-restarted": { kind: "unavailable", title: "Query engine restarted" },
  "shutting-down": { kind: "unavailable", title: "Shutting down" },
  "workers-busy": { kind: "unavailable", title: "Too busy" },
  "store-incapable": { kind: "unavailable", title: "Triple store lacks a required behaviour" },
  // timeout
  "query-timeout": { kind: "timeout", title: "Query timed out" },
  "search-timeout": { kind: "timeout", title: "Search timed out" },
  // insufficient-storage
  "storage-full": { kind: "insufficient-storage", title: "Storage full" },
  "storage-read-only": { kind: "insufficient-storage", title: "Storage read-only" },
} as const satisfies Record<string, ProblemFacts>;

/** A problem's public slug: one of the catalogue's. */
export type ProblemSlug = keyof typeof PROBLEMS;

/** Whether `slug` is in the catalogue (for slugs that arrive as text, e.g. across a thread). */
export function isProblemSlug(slug: string): slug is ProblemSlug {
  return Object.hasOwn(PROBLEMS, slug);
}
