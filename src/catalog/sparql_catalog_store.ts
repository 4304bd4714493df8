/**
 * The stored catalog in the SPARQL store's metadata graph, shared by every instance on the
 * store, beside the job records (`src/job_stores/sparql_job_store.ts`).
 *
 * A record is `<urn:rdf-content-service:catalog-entry:ENCODED-URI> rcs:catalogUri "…" ;
 * rcs:catalogKind "workspace|collection" ; rcs:catalogWorkspace "…" ; rcs:catalogSettings
 * "<JSON>" ; rcs:catalogRevision "…" ; rcs:catalogCreated <ms>`, and
 * `<urn:rdf-content-service:catalog> rcs:catalogVersion "…"` changes with every write. Each
 * write is one update request (one transaction); its outcome is read back afterwards.
 * Queries keep to the forms every SPARQL 1.1 store runs alike
 * (`src/sparql_protocol/portable_sparql.ts`): absence is tested with {@link whenAbsent}, and
 * no WHERE clause is a lone `OPTIONAL` (Virtuoso answers such a group with no row, so the
 * update would change nothing).
 */
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import {
  type CatalogRecord,
  type CatalogStore,
  newRevision,
  type ReplaceOutcome,
} from "./catalog_store.ts";

/** A catalog of thousands of collections stays far below this. */
const MAX_CATALOG_BYTES = 64 << 20;

/** Catalog records in `metadataGraph`. */
export class SparqlCatalogStore implements CatalogStore {
  readonly #client: SparqlHttpClient;
  readonly #meta: string;
  readonly #catalog = iriToSparql(`${METADATA_NAMESPACE}catalog`);

  constructor(client: SparqlHttpClient, metadataGraph: string) {
    this.#client = client;
    this.#meta = iriToSparql(metadataGraph);
  }

  async version(): Promise<string> {
    const rows = await selectRows(
      this.#client,
      `SELECT ?version WHERE { GRAPH ${this.#meta} { ${this.#catalog} rcs:catalogVersion ?version } }`,
    );
    return rows.map((row) => row.get("version")?.value ?? "").sort().join(" ");
  }

  async list(): Promise<CatalogRecord[]> {
    const rows = await selectRows(
      this.#client,
      `SELECT ?uri ?kind ?workspace ?settings ?revision ?created WHERE { GRAPH ${this.#meta} {
         ?entry rcs:catalogUri ?uri ; rcs:catalogKind ?kind ; rcs:catalogSettings ?settings ;
           rcs:catalogRevision ?revision ; rcs:catalogCreated ?created .
         OPTIONAL { ?entry rcs:catalogWorkspace ?workspace } } }
       ORDER BY ?created ?uri`,
      MAX_CATALOG_BYTES,
    );
    const records = rows.map((row): CatalogRecord => {
      const workspace = row.get("workspace")?.value;
      return {
        kind: row.get("kind")!.value as CatalogRecord["kind"],
        uri: row.get("uri")!.value,
        ...(workspace === undefined ? {} : { workspace }),
        settings: JSON.parse(row.get("settings")!.value),
        revision: row.get("revision")!.value,
      };
    });
    return [
      ...records.filter((record) => record.kind === "workspace"),
      ...records.filter((record) => record.kind === "collection"),
    ];
  }

  async insert(record: CatalogRecord): Promise<boolean> {
    const entry = this.#entry(record.uri);
    const workspace = record.workspace === undefined
      ? ""
      : `; rcs:catalogWorkspace ${stringToSparql(record.workspace)}`;
    await this.#client.update(`${PROLOGUE}
      INSERT { GRAPH ${this.#meta} {
        ${entry} rcs:catalogUri ${stringToSparql(record.uri)} ;
          rcs:catalogKind ${stringToSparql(record.kind)} ;
          rcs:catalogSettings ${stringToSparql(JSON.stringify(record.settings))} ;
          rcs:catalogRevision ${stringToSparql(record.revision)} ;
          rcs:catalogCreated ${integerLiteral(Date.now())} ${workspace} } }
      WHERE { ${whenAbsent(`GRAPH ${this.#meta} { ${entry} rcs:catalogRevision ?existing }`)} } ;
      ${this.#bumpVersion()}`);
    return (await this.#revisions(record.uri)).includes(record.revision);
  }

  async replace(record: CatalogRecord, expectedRevision?: string): Promise<ReplaceOutcome> {
    const entry = this.#entry(record.uri);
    const guard = expectedRevision === undefined
      ? ""
      : `FILTER(STR(?revision) = ${stringToSparql(expectedRevision)})`;
    const workspace = record.workspace === undefined
      ? ""
      : `${entry} rcs:catalogWorkspace ${stringToSparql(record.workspace)} .`;
    await this.#client.update(`${PROLOGUE}
      DELETE { GRAPH ${this.#meta} {
        ${entry} rcs:catalogSettings ?settings ; rcs:catalogRevision ?revision ;
          rcs:catalogWorkspace ?workspace } }
      INSERT { GRAPH ${this.#meta} {
        ${entry} rcs:catalogSettings ${stringToSparql(JSON.stringify(record.settings))} ;
          rcs:catalogRevision ${stringToSparql(record.revision)} .
        ${workspace} } }
      WHERE { GRAPH ${this.#meta} {
        ${entry} rcs:catalogSettings ?settings ; rcs:catalogRevision ?revision .
        OPTIONAL { ${entry} rcs:catalogWorkspace ?workspace } }
        ${guard} } ;
      ${this.#bumpVersion()}`);
    const revisions = await this.#revisions(record.uri);
    if (revisions.length === 0) return "missing";
    return revisions.includes(record.revision) ? "replaced" : "stale";
  }

  async remove(uri: string): Promise<boolean> {
    if ((await this.#revisions(uri)).length === 0) return false;
    const entry = this.#entry(uri);
    await this.#client.update(`${PROLOGUE}
      DELETE { GRAPH ${this.#meta} { ${entry} ?p ?o } }
      WHERE { GRAPH ${this.#meta} { ${entry} ?p ?o } } ;
      ${this.#bumpVersion()}`);
    return true;
  }

  /**
   * The operations that give the catalog a new version: the old one deleted, the new one
   * inserted, in the same request (so in the same transaction) as the change itself.
   */
  #bumpVersion(): string {
    return `DELETE WHERE { GRAPH ${this.#meta} { ${this.#catalog} rcs:catalogVersion ?old } } ;
      INSERT DATA { GRAPH ${this.#meta} {
        ${this.#catalog} rcs:catalogVersion ${stringToSparql(newRevision())} } }`;
  }

  async #revisions(uri: string): Promise<string[]> {
    const rows = await selectRows(
      this.#client,
      `SELECT ?revision WHERE { GRAPH ${this.#meta} {
         ${this.#entry(uri)} rcs:catalogRevision ?revision } }`,
    );
    return rows.map((row) => row.get("revision")?.value ?? "");
  }

  /** The record's subject: one per URI, so that two inserts of one URI meet. */
  #entry(uri: string): string {
    return iriToSparql(`${METADATA_NAMESPACE}catalog-entry:${encodeURIComponent(uri)}`);
  }
}
