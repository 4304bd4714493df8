/**
 * The problem catalogue: every problem the service raises, by its public slug, with its kind
 * (which the HTTP edge turns into a status) and its title.
 *
 * This is the one place a problem's kind and title are written. Throw sites name the slug and
 * give only what varies (detail, field errors, extra members): `new DomainError("item-exists",
 * { detail })`. A slug is a {@link ProblemSlug}, so an unknown one does not type-check, and a slug
 * has one kind and one title: it is listed once, under its kind (a second listing fails at load).
 * docs/api.md's problem table lists the same slugs, statuses and titles
 * (`tests/unit/problem_catalogue_test.ts` holds the two together).
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
  /** What the request names existed and was deleted (its history remains). */
  | "gone"
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

/** Every problem's title, by slug, under its kind (its type is `/problems/<slug>`). */
const TITLES_BY_KIND = {
  "invalid-input": {
    "missing-parameter": "Missing parameter",
    "invalid-iri": "Invalid IRI",
    "invalid-boolean": "Invalid boolean",
    "invalid-parameter": "Invalid parameter",
    "empty-body": "Empty body",
    "rdf-syntax": "Malformed RDF",
    "relative-iri": "Relative IRI without a base",
    "invalid-jsonld": "Invalid JSON-LD",
    "invalid-json": "Invalid JSON",
    "invalid-encoding": "Body is not UTF-8",
    "remote-context-refused": "Remote JSON-LD context refused",
    "no-root-subject": "No root subject",
    "several-root-subjects": "Several root subjects",
    "blank-root-subject": "Item needs a URI",
    "item-not-described": "Body does not describe the item",
    "named-graphs-not-allowed": "Named graphs are not allowed",
    "uri-not-in-body": "URI not in body",
    "invalid-sort": "Field cannot be sorted",
    "invalid-search-query": "Invalid search query",
    "search-query-refused": "Search query refused",
    "missing-query": "Missing query",
    "invalid-sparql": "Invalid SPARQL",
    "query-failed": "Query failed",
    "sparql-update-refused": "Updates are not allowed",
    "sparql-service-refused": "Federated queries are not allowed",
    "reserved-graph": "Reserved graph",
    "missing-file": "Missing file",
    "ambiguous-file": "Which file?",
    "invalid-multipart": "Malformed multipart body",
    "invalid-term": "Term cannot be stored",
    "invalid-literal": "Invalid literal",
    "invalid-settings": "Invalid settings",
    "graph-name-not-iri": "Graph name is not an IRI",
    "graph-not-contiguous": "Graph split in two",
    "unknown-field": "Unknown field",
  },
  "unauthenticated": {
    "unauthorized": "Authentication required",
  },
  "forbidden": {
    "forbidden": "Role too weak",
    "foreign-caller": "Only local callers without access tokens",
    "search-dsl-disabled": "Query DSL switched off",
  },
  "not-found": {
    "collection-not-found": "Collection not found",
    "workspace-not-found": "Workspace not found",
    "item-not-found": "Item not found",
    "version-not-found": "Item version not found",
    "job-not-found": "Job not found",
    "dead-letter-not-found": "Webhook dead letter not found",
    "endpoint-not-found": "SPARQL endpoint not found",
    "search-index-not-found": "Search index not found",
    "asset-not-found": "File not found",
    "not-found": "Not found",
  },
  "gone": {
    "item-deleted": "Item deleted",
    "cursor-expired": "Change feed cursor expired",
  },
  "not-acceptable": {
    "not-acceptable": "Not acceptable",
    "not-expressible": "Not expressible in this format",
  },
  "conflict": {
    "item-exists": "Item already exists",
    "indexing-running": "Indexing is running",
    "import-running": "An import of this collection is running",
    "prune-running": "History pruning is running",
    "rebuild-not-active": "No such rebuild",
    "collection-exists": "The collection exists",
    "workspace-exists": "The workspace exists",
    "index-in-use": "The search index is in use",
    "collection-from-config": "The collection is configured in customer.yml",
    "collection-not-empty": "The collection holds items",
  },
  "precondition-failed": {
    "precondition-failed": "Precondition failed",
  },
  "too-large": {
    "body-too-large": "Request body too large",
    "query-too-large": "Query too large",
  },
  "unsupported-media": {
    "unsupported-media-type": "Unsupported media type",
  },
  "unprocessable": {
    "shacl-violation": "The item does not conform to the collection's shapes",
    "canonicalization-limit": "Graph too complex to canonicalize",
    "query-too-broad": "Query too broad",
  },
  "internal": {
    "internal-error": "Internal server error",
    "invalid-index-name": "Invalid index name",
  },
  "not-implemented": {
    "not-implemented": "Not implemented",
    "history-unsupported": "This store keeps no item history",
    "changes-unsupported": "This store keeps no change feed",
  },
  "backend-failed": {
    "store-error": "Triple store error",
    "search-error": "Search failed",
    "store-incomplete-answer": "Triple store answer incomplete",
  },
  "unavailable": {
    "store-unavailable": "Triple store unavailable",
    "search-unavailable": "Search unavailable",
    "write-outcome-unknown": "Write outcome unknown",
    "query-engine-restarted": "Query engine restarted",
    "shutting-down": "Shutting down",
    "workers-busy": "Too busy",
    "store-incapable": "Triple store lacks a required behaviour",
    "identity-provider-unavailable": "Identity provider unavailable",
  },
  "timeout": {
    "query-timeout": "Query timed out",
    "search-timeout": "Search timed out",
  },
  "insufficient-storage": {
    "storage-full": "Storage full",
    "storage-read-only": "Storage read-only",
  },
} as const satisfies Record<ErrorKind, Record<string, string>>;

type TitlesByKind = typeof TITLES_BY_KIND;

/** A problem's public slug: one of the catalogue's. */
export type ProblemSlug = { [K in ErrorKind]: keyof TitlesByKind[K] & string }[ErrorKind];

/** Every problem, by slug: its kind and title. */
export const PROBLEMS: Readonly<Record<ProblemSlug, ProblemFacts>> = catalogue();

function catalogue(): Record<ProblemSlug, ProblemFacts> {
  const problems: Record<string, ProblemFacts> = {};
  for (const [kind, titles] of Object.entries(TITLES_BY_KIND) as [ErrorKind, object][]) {
    for (const [slug, title] of Object.entries(titles) as [string, string][]) {
      // One slug, one kind and one title: a slug under two kinds is a mistake here.
      if (slug in problems) throw new Error(`problem ${slug} is listed twice`);
      problems[slug] = { kind, title };
    }
  }
  return problems;
}
