/**
 * An indexing job as docs/api.md shows it, with what it indexes and the rebuild indices it holds.
 * Its records live in the generic job store (`src/jobs/job_store.ts`); what a job does is
 * `job_runner.ts`.
 */
import type { StoredJob } from "../jobs/job_store.ts";

/** What a job indexes (docs/api.md: `scope`). */
export interface JobScope {
  type: "workspace" | "collection" | "items";
  /** The workspace or collection URI. */
  uri: string;
  /** The listed item URIs; only for `type: "items"`. */
  items?: string[];
}

/** A job as docs/api.md shows it (with the fields of every job). */
export interface IndexJob extends StoredJob {
  scope: JobScope;
  clear: boolean;
  total: number;
  processed: number;
  indexed: number;
  deleted: number;
  /** Every failure; `errors` lists the first `MAX_JOB_ERRORS` of them. */
  failed: number;
}

/** A physical search index a job is rebuilding, to drop if the job is lost. */
export interface JobRebuild {
  collection: string;
  physicalName: string;
}
