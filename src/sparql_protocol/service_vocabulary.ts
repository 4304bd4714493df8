/**
 * The service's own vocabulary in a SPARQL store: the namespace of the predicates and record
 * IRIs it writes beside the items (the item store's metadata, the index outbox, the job and
 * catalog records), and the prologue that names it in every query and update of that data.
 */

/** Namespace of the service's own predicates in the store (`rcs:collection`, `rcs:hash`, …). */
export const METADATA_NAMESPACE = "urn:rdf-content-service:";

/** The prologue every query and update of the service's own data starts with. */
export const PROLOGUE = `PREFIX rcs: <${METADATA_NAMESPACE}>\n`;
