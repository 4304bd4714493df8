/**
 * Indexing job records in the SPARQL store's metadata graph, shared by every service
 * instance on the store (see `job_store.ts` for the contract).
 *
 * Why the SPARQL store and not an OpenSearch index: it is the system of record that every
 * instance already shares, and it runs an update's check and write in one transaction, so
 * "start unless a live job exists" is one guarded update with no race, and what a job
 * record says is visible to the next read at once (OpenSearch makes writes searchable only
 * after a refresh, and its optimistic concurrency works per document, not per condition).
 *
 * A job is `<urn:rdf-content-service:job:ID> rcs:jobRecord "<JSON>" ; rcs:jobState "…" ;
 * rcs:heartbeat <ms> ; rcs:jobCreated <ms> ; rcs:jobOwner "<instance>"`. The JSON holds the
 * job as docs/api.md shows it and the rebuild indices it owns; the state and heartbeat sit beside
 * it so that guards can test them. Times are epoch milliseconds of the writing instance's
 * clock: instances' clocks must agree to well within a lease.
 *
 * Each kind of job has its own IRI prefix (`job:` for indexing, as before kinds existed;
 * `import-job:` for bulk imports), so that kinds never see each other's jobs; a job started
 * with a lock carries `rcs:jobLock "<lock>"`, and only live jobs with the same lock block it.
 */
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import {
  abandonedMessage,
  failedJob,
  INTERRUPTED_MESSAGE,
  isLive,
  JOB_HISTORY_LIMIT,
  type JobRecord,
  type JobStore,
  type StartDecision,
  type StoredJob,
} from "../jobs/job_store.ts";

/** What a job id looks like (a UUID): anything else names no job. */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The whole history (1000 jobs of up to 100 errors each) stays far below this. */
const MAX_HISTORY_BYTES = 256 << 20;
/** Reads of a job record caught half rewritten (see `#selectRecords`) before giving up on it. */
const RECORD_READS = 4;

/**
 * Job records in `metadataGraph`; a job is live while its heartbeat is younger than `leaseMs`.
 * `kind` names the IRI prefix of this store's jobs (`job` for indexing jobs).
 */
export class SparqlJobStore<J extends StoredJob, H = never> implements JobStore<J, H> {
  readonly #client: SparqlHttpClient;
  readonly #meta: string;
  readonly #leaseMs: number;
  readonly #prefix: string;

  constructor(client: SparqlHttpClient, metadataGraph: string, leaseMs: number, kind = "job") {
    this.#client = client;
    this.#meta = iriToSparql(metadataGraph);
    this.#leaseMs = leaseMs;
    this.#prefix = `${METADATA_NAMESPACE}${kind}:`;
  }

  async tryStart(job: J, owner: string, lock?: string): Promise<StartDecision> {
    const now = Date.now();
    const subject = this.#jobIri(job.id);
    const lockTriple = lock === undefined ? "" : `; rcs:jobLock ${stringToSparql(lock)}`;
    await this.#client.update(
      `${PROLOGUE}
      INSERT { GRAPH ${this.#meta} {
        ${subject} rcs:jobRecord ${stringToSparql(JSON.stringify({ job, rebuilds: [] }))} ;
          rcs:jobState ${stringToSparql(job.state)} ; rcs:heartbeat ${integerLiteral(now)} ;
          rcs:jobCreated ${integerLiteral(now)} ; rcs:jobOwner ${stringToSparql(owner)}
          ${lockTriple} } }
      WHERE { ${whenAbsent(this.#livePattern("?other", now, lock))} } ;
      DELETE { GRAPH ${this.#meta} { ?old ?p ?o } }
      WHERE { { SELECT ?old WHERE { GRAPH ${this.#meta} { ?old rcs:jobCreated ?created }
                  ${this.#ofKind("?old")} }
                ORDER BY DESC(?created) OFFSET ${JOB_HISTORY_LIMIT} }
              GRAPH ${this.#meta} { ?old ?p ?o } }`,
      { idempotent: true },
    );
    const rows = await selectRows(
      this.#client,
      `SELECT ?job WHERE { ${this.#livePattern("?job", now, lock)} } LIMIT 2`,
    );
    const live = rows.map((row) => row.get("job")?.value ?? "");
    if (live.includes(this.#prefix + job.id)) return { started: true };
    return { started: false, runningJob: (live[0] ?? "").slice(this.#prefix.length) };
  }

  async save(record: JobRecord<J, H>, owner: string): Promise<boolean> {
    const now = Date.now();
    const subject = this.#jobIri(record.job.id);
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} {
        ${subject} rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat } }
      INSERT { GRAPH ${this.#meta} {
        ${subject} rcs:jobRecord ${stringToSparql(JSON.stringify(record))} ;
          rcs:jobState ${stringToSparql(record.job.state)} ; rcs:heartbeat ${
        integerLiteral(now)
      } } }
      WHERE { GRAPH ${this.#meta} {
        ${subject} rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat ;
          rcs:jobOwner ${stringToSparql(owner)} }
        FILTER((?state = "queued" || ?state = "running") && ?heartbeat > ${now - this.#leaseMs}) }`,
      { idempotent: true },
    );
    const rows = await selectRows(
      this.#client,
      `SELECT ?heartbeat WHERE { GRAPH ${this.#meta} { ${subject} rcs:heartbeat ?heartbeat } }`,
    );
    return rows.length === 1 && Number(rows[0].get("heartbeat")?.value) === now;
  }

  async get(id: string): Promise<J | undefined> {
    if (!JOB_ID.test(id)) return undefined; // ids are UUIDs; nothing else is looked up
    const rows = await this.#selectRecords(
      `SELECT ?record ?heartbeat WHERE { GRAPH ${this.#meta} {
         ${this.#jobIri(id)} rcs:jobRecord ?record ; rcs:heartbeat ?heartbeat } }`,
    );
    return rows.length === 0 ? undefined : this.#present(rows[0], Date.now());
  }

  async recent(limit: number): Promise<J[]> {
    const rows = await this.#selectRecords(
      `SELECT ?record ?heartbeat WHERE { GRAPH ${this.#meta} {
         ?job rcs:jobRecord ?record ; rcs:heartbeat ?heartbeat ; rcs:jobCreated ?created }
         ${this.#ofKind("?job")} }
       ORDER BY DESC(?created) DESC(?job) LIMIT ${Math.max(1, Math.trunc(limit))}`,
    );
    const now = Date.now();
    return rows.map((row) => this.#present(row, now));
  }

  async live(lock?: string): Promise<J | undefined> {
    const now = Date.now();
    const rows = await this.#selectRecords(
      `SELECT ?record (?liveHeartbeat AS ?heartbeat) WHERE { ${this.#livePattern("?job", now, lock)}
         GRAPH ${this.#meta} { ?job rcs:jobRecord ?record } } LIMIT 1`,
    );
    return rows.length === 0 ? undefined : this.#present(rows[0], now);
  }

  async failLost(restartedOwner?: string): Promise<JobRecord<J, H>[]> {
    // A name no instance has when none restarted: only ended heartbeats count then.
    const owner = restartedOwner ?? "";
    const now = Date.now();
    const rows = await this.#selectRecords(
      `SELECT ?job ?record ?heartbeat ?owner WHERE { GRAPH ${this.#meta} {
         ?job rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat ;
           rcs:jobOwner ?owner }
         ${this.#ofKind("?job")}
         FILTER((?state = "queued" || ?state = "running") &&
           (?owner = ${stringToSparql(owner)} || ?heartbeat <= ${now - this.#leaseMs})) }`,
    );
    const marked: JobRecord<J, H>[] = [];
    const finishedAt = new Date(now).toISOString();
    for (const row of rows) {
      const heartbeat = row.get("heartbeat")?.value;
      // Caught half rewritten: the next sweep looks again.
      if (heartbeat === undefined || row.get("owner") === undefined) continue;
      const record = JSON.parse(row.get("record")!.value) as JobRecord<J, H>;
      const message = row.get("owner")!.value === owner
        ? INTERRUPTED_MESSAGE
        : abandonedMessage(this.#leaseMs);
      const failed: JobRecord<J, H> = {
        job: failedJob(record.job, message, finishedAt),
        rebuilds: [],
      };
      const subject = this.#jobIri(record.job.id);
      // Guarded by the heartbeat read: a job that came back to life meanwhile is left alone.
      await this.#client.update(
        `${PROLOGUE}
        DELETE { GRAPH ${this.#meta} { ${subject} rcs:jobRecord ?record ; rcs:jobState ?state } }
        INSERT { GRAPH ${this.#meta} {
          ${subject} rcs:jobRecord ${stringToSparql(JSON.stringify(failed))} ;
            rcs:jobState "failed" } }
        WHERE { GRAPH ${this.#meta} {
          ${subject} rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat }
          FILTER((?state = "queued" || ?state = "running") && STR(?heartbeat) = ${
          stringToSparql(heartbeat)
        }) }`,
        { idempotent: true },
      );
      const after = await this.get(record.job.id);
      if (after?.finishedAt === finishedAt && after.state === "failed") marked.push(record);
    }
    return marked;
  }

  /**
   * Matches `variable` bound to each live job of this kind (holding `lock`, when given):
   * queued or running, heartbeat younger than the lease.
   */
  #livePattern(variable: string, now: number, lock?: string): string {
    const locked = lock === undefined ? "" : `; rcs:jobLock ${stringToSparql(lock)}`;
    return `GRAPH ${this.#meta} { ${variable} rcs:jobState ?liveState ;
        rcs:heartbeat ?liveHeartbeat ${locked} }
      ${this.#ofKind(variable)}
      FILTER((?liveState = "queued" || ?liveState = "running") &&
        ?liveHeartbeat > ${now - this.#leaseMs})`;
  }

  /**
   * Rows of a query that binds `?record`. Virtuoso reads at "read committed": a record being
   * rewritten at that moment can come back unbound (a row without it); such a read is made
   * again, and a row still without its record after that is left out (the job is being
   * rewritten; the next read sees it).
   */
  async #selectRecords(query: string): Promise<SparqlRow[]> {
    for (let attempt = 1;; attempt++) {
      const rows = await selectRows(this.#client, query, MAX_HISTORY_BYTES);
      const whole = rows.filter((row) => row.get("record") !== undefined);
      if (whole.length === rows.length || attempt === RECORD_READS) return whole;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }

  /** Keeps `variable` to jobs of this store's kind. */
  #ofKind(variable: string): string {
    return `FILTER(STRSTARTS(STR(${variable}), ${stringToSparql(this.#prefix)}))`;
  }

  #jobIri(id: string): string {
    return iriToSparql(`${this.#prefix}${id}`);
  }

  /** The job of a row; a live job whose heartbeat ended reads as failed at once. */
  #present(row: SparqlRow, now: number): J {
    const { job } = JSON.parse(row.get("record")!.value) as JobRecord<J, H>;
    const heartbeat = Number(row.get("heartbeat")?.value);
    if (!isLive(job) || !Number.isFinite(heartbeat) || heartbeat > now - this.#leaseMs) return job;
    const ended = new Date(heartbeat + this.#leaseMs).toISOString();
    return failedJob(job, abandonedMessage(this.#leaseMs), ended);
  }
}
