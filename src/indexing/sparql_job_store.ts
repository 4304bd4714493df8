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
 * job as API.md shows it and the rebuild indices it owns; the state and heartbeat sit beside
 * it so that guards can test them. Times are epoch milliseconds of the writing instance's
 * clock: instances' clocks must agree to well within a lease.
 */
import type { SparqlHttpClient } from "../store/sparql_client.ts";
import { iriToSparql, stringToSparql } from "../store/sparql_terms.ts";
import {
  integerLiteral,
  METADATA_NAMESPACE,
  PROLOGUE,
  selectRows,
} from "../store/sparql_lookup.ts";
import type { SparqlRow } from "../store/sparql_results.ts";
import {
  abandonedMessage,
  failedJob,
  type IndexJob,
  INTERRUPTED_MESSAGE,
  isLive,
  JOB_HISTORY_LIMIT,
  type JobRecord,
  type JobStore,
  type StartDecision,
} from "./job_store.ts";

const JOB_PREFIX = `${METADATA_NAMESPACE}job:`;
/** What a job id looks like (a UUID): anything else names no job. */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The whole history (1000 jobs of up to 100 errors each) stays far below this. */
const MAX_HISTORY_BYTES = 256 << 20;

/** Job records in `metadataGraph`; a job is live while its heartbeat is younger than `leaseMs`. */
export class SparqlJobStore implements JobStore {
  readonly #client: SparqlHttpClient;
  readonly #meta: string;
  readonly #leaseMs: number;

  constructor(client: SparqlHttpClient, metadataGraph: string, leaseMs: number) {
    this.#client = client;
    this.#meta = iriToSparql(metadataGraph);
    this.#leaseMs = leaseMs;
  }

  async tryStart(job: IndexJob, owner: string): Promise<StartDecision> {
    const now = Date.now();
    const subject = jobIri(job.id);
    await this.#client.update(`${PROLOGUE}
      INSERT { GRAPH ${this.#meta} {
        ${subject} rcs:jobRecord ${stringToSparql(JSON.stringify({ job, rebuilds: [] }))} ;
          rcs:jobState ${stringToSparql(job.state)} ; rcs:heartbeat ${integerLiteral(now)} ;
          rcs:jobCreated ${integerLiteral(now)} ; rcs:jobOwner ${stringToSparql(owner)} } }
      WHERE { FILTER NOT EXISTS { ${this.#livePattern("?other", now)} } } ;
      DELETE { GRAPH ${this.#meta} { ?old ?p ?o } }
      WHERE { { SELECT ?old WHERE { GRAPH ${this.#meta} { ?old rcs:jobCreated ?created } }
                ORDER BY DESC(?created) OFFSET ${JOB_HISTORY_LIMIT} }
              GRAPH ${this.#meta} { ?old ?p ?o } }`);
    const rows = await selectRows(
      this.#client,
      `SELECT ?job WHERE { ${this.#livePattern("?job", now)} } LIMIT 2`,
    );
    const live = rows.map((row) => row.get("job")?.value ?? "");
    if (live.includes(JOB_PREFIX + job.id)) return { started: true };
    return { started: false, runningJob: (live[0] ?? "").slice(JOB_PREFIX.length) };
  }

  async save(record: JobRecord, owner: string): Promise<boolean> {
    const now = Date.now();
    const subject = jobIri(record.job.id);
    await this.#client.update(`${PROLOGUE}
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
        FILTER((?state = "queued" || ?state = "running") && ?heartbeat > ${
      now - this.#leaseMs
    }) }`);
    const rows = await selectRows(
      this.#client,
      `SELECT ?heartbeat WHERE { GRAPH ${this.#meta} { ${subject} rcs:heartbeat ?heartbeat } }`,
    );
    return rows.length === 1 && Number(rows[0].get("heartbeat")?.value) === now;
  }

  async get(id: string): Promise<IndexJob | undefined> {
    if (!JOB_ID.test(id)) return undefined; // ids are UUIDs; nothing else is looked up
    const rows = await selectRows(
      this.#client,
      `SELECT ?record ?heartbeat WHERE { GRAPH ${this.#meta} {
         ${jobIri(id)} rcs:jobRecord ?record ; rcs:heartbeat ?heartbeat } }`,
      MAX_HISTORY_BYTES,
    );
    return rows.length === 0 ? undefined : this.#present(rows[0], Date.now());
  }

  async recent(limit: number): Promise<IndexJob[]> {
    const rows = await selectRows(
      this.#client,
      `SELECT ?record ?heartbeat WHERE { GRAPH ${this.#meta} {
         ?job rcs:jobRecord ?record ; rcs:heartbeat ?heartbeat ; rcs:jobCreated ?created } }
       ORDER BY DESC(?created) DESC(?job) LIMIT ${Math.max(1, Math.trunc(limit))}`,
      MAX_HISTORY_BYTES,
    );
    const now = Date.now();
    return rows.map((row) => this.#present(row, now));
  }

  async live(): Promise<IndexJob | undefined> {
    const now = Date.now();
    const rows = await selectRows(
      this.#client,
      `SELECT ?record (?liveHeartbeat AS ?heartbeat) WHERE { ${this.#livePattern("?job", now)}
         GRAPH ${this.#meta} { ?job rcs:jobRecord ?record } } LIMIT 1`,
      MAX_HISTORY_BYTES,
    );
    return rows.length === 0 ? undefined : this.#present(rows[0], now);
  }

  async failLost(restartedOwner?: string): Promise<JobRecord[]> {
    // A name no instance has when none restarted: only ended heartbeats count then.
    const owner = restartedOwner ?? "";
    const now = Date.now();
    const rows = await selectRows(
      this.#client,
      `SELECT ?job ?record ?heartbeat ?owner WHERE { GRAPH ${this.#meta} {
         ?job rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat ;
           rcs:jobOwner ?owner }
         FILTER((?state = "queued" || ?state = "running") &&
           (?owner = ${stringToSparql(owner)} || ?heartbeat <= ${now - this.#leaseMs})) }`,
      MAX_HISTORY_BYTES,
    );
    const marked: JobRecord[] = [];
    const finishedAt = new Date(now).toISOString();
    for (const row of rows) {
      const record = JSON.parse(row.get("record")!.value) as JobRecord;
      const heartbeat = row.get("heartbeat")!.value;
      const message = row.get("owner")!.value === owner
        ? INTERRUPTED_MESSAGE
        : abandonedMessage(this.#leaseMs);
      const failed: JobRecord = { job: failedJob(record.job, message, finishedAt), rebuilds: [] };
      const subject = jobIri(record.job.id);
      // Guarded by the heartbeat read: a job that came back to life meanwhile is left alone.
      await this.#client.update(`${PROLOGUE}
        DELETE { GRAPH ${this.#meta} { ${subject} rcs:jobRecord ?record ; rcs:jobState ?state } }
        INSERT { GRAPH ${this.#meta} {
          ${subject} rcs:jobRecord ${stringToSparql(JSON.stringify(failed))} ;
            rcs:jobState "failed" } }
        WHERE { GRAPH ${this.#meta} {
          ${subject} rcs:jobRecord ?record ; rcs:jobState ?state ; rcs:heartbeat ?heartbeat }
          FILTER((?state = "queued" || ?state = "running") && STR(?heartbeat) = ${
        stringToSparql(heartbeat)
      }) }`);
      const after = await this.get(record.job.id);
      if (after?.finishedAt === finishedAt && after.state === "failed") marked.push(record);
    }
    return marked;
  }

  /** Matches `variable` bound to each live job: queued or running, heartbeat younger than the lease. */
  #livePattern(variable: string, now: number): string {
    return `GRAPH ${this.#meta} { ${variable} rcs:jobState ?liveState ;
        rcs:heartbeat ?liveHeartbeat }
      FILTER((?liveState = "queued" || ?liveState = "running") &&
        ?liveHeartbeat > ${now - this.#leaseMs})`;
  }

  /** The job of a row; a live job whose heartbeat ended reads as failed at once. */
  #present(row: SparqlRow, now: number): IndexJob {
    const { job } = JSON.parse(row.get("record")!.value) as JobRecord;
    const heartbeat = Number(row.get("heartbeat")?.value);
    if (!isLive(job) || !Number.isFinite(heartbeat) || heartbeat > now - this.#leaseMs) return job;
    const ended = new Date(heartbeat + this.#leaseMs).toISOString();
    return failedJob(job, abandonedMessage(this.#leaseMs), ended);
  }
}

function jobIri(id: string): string {
  return iriToSparql(`${JOB_PREFIX}${id}`);
}
