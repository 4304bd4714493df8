/**
 * An import job's record: what it is (its parameters, counts, outcome and errors, as
 * docs/api.md shows it) and how it reads (its outcome and summary from its counts, why an
 * import that wrote nothing failed, the input's error that ended it). The runner that fills
 * it in is import_jobs.ts.
 */
import { DomainError, isSystemFailure } from "../errors/domain_error.ts";
import type { JobError, StoredJob } from "../jobs/job_store.ts";
import type { ImportFormat } from "../rdf/format_table.ts";
import type { GraphNames } from "./subject_items.ts";
import {
  type ImportCounts,
  type ImportOutcome,
  importOutcome,
  importSummary,
} from "./import_summary.ts";

/** What an import does with an item that exists: skip it, or replace it. */
export type ImportMode = "create" | "replace" | "upsert";

/** How a document is cut into items: one per named graph, or one per IRI subject. */
export type ItemsBy = "graph" | "subject";

/** A refused or skipped item (or part), or the job's failure. */
export interface ImportError extends JobError {
  /** The collection that holds the item's IRI, when that is why it was not imported. */
  collection?: string;
}

/** An import job as docs/api.md shows it. */
export interface ImportJob extends StoredJob, ImportCounts {
  collection: string;
  mode: ImportMode;
  format: ImportFormat;
  /** `graph` (each named graph one item) or `subject` (each IRI subject one item). */
  itemsBy: ItemsBy;
  /** By subject: what is done with triples in named graphs. */
  graphs?: GraphNames;
  /** Bytes of the body read so far. */
  bytesRead: number;
  /** `unchanged + skipped`: items found in the collection already (for older clients). */
  existing: number;
  /** How the import ended for its data; null while it runs. */
  outcome: ImportOutcome | null;
  /** One line: the outcome and the counts (`importSummary`), as the command line prints it. */
  summary: string;
  errors: ImportError[];
}

/** One import's parameters. */
export interface ImportRequest {
  collection: string;
  mode: ImportMode;
  format: ImportFormat;
  /** `graph` unless said. */
  itemsBy?: ItemsBy;
  /** By subject: triples in named graphs refuse the document (default) or lose their graph. */
  graphs?: GraphNames;
  /** The `base` parameter: what relative IRIs resolve against. */
  base?: string;
  /** The body's declared length, when there is one: a shorter body fails the job. */
  declaredBytes?: number;
  /** Who imports, recorded in each written item's history (`local` when unset). */
  principal?: string;
}

/** 409 while an import of the collection runs; `runningJob` names it. */
export function importRunning(collection: string, runningJob: string): DomainError {
  return new DomainError("import-running", {
    detail:
      `Import job ${runningJob} is importing into <${collection}>; one import per collection ` +
      "runs at a time.",
    extensions: { runningJob },
  });
}

/**
 * The job's outcome and summary from its counts (filled in for records written before
 * `unchanged` and `skipped` were counted).
 */
export function summarised(job: ImportJob): ImportJob {
  if (job.unchanged === undefined || job.skipped === undefined) {
    job.unchanged ??= 0;
    job.skipped ??= 0;
  } else job.existing = job.unchanged + job.skipped;
  job.outcome = importOutcome(job.state, job);
  job.summary = importSummary(job.outcome, job);
  return job;
}

/** Why an import that ran to its end imported nothing, with the way out where there is one. */
export function nothingImported(job: ImportJob): string {
  if (job.refused + job.skipped === 0) return "Nothing was imported: the body holds no items.";
  const onlyDefaultGraph = job.errors.length > 0 &&
    job.errors.every((error) => error.type === "default-graph-refused");
  return `Nothing was imported: ${job.refused} items or parts refused, ${job.skipped} ` +
    "skipped (see errors)." +
    (onlyDefaultGraph
      ? " The body has no named graph: import it by subject (itemsBy=subject, deno task " +
        "import --items-by subject)."
      : "");
}

/** The input's fault that ended an import, as a job error with its type and line. */
export function inputError(error: unknown): ImportError | undefined {
  if (!(error instanceof DomainError) || isSystemFailure(error)) return undefined;
  const at = /^(\d+):\d+$/.exec(error.errors?.[0]?.path ?? "");
  return {
    item: null,
    type: error.slug,
    ...(at ? { line: Number(at[1]) } : {}),
    message: error.message,
  };
}
