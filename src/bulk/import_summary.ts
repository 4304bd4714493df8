/**
 * What an import's counts add up to: its outcome, the one-line summary the job and the
 * command line both show, and the command line's exit status for it. The table of exit
 * statuses is written here once: `deno task import --help` prints it and docs/api.md repeats
 * it (`tests/api/import_outcome_test.ts` holds the two together).
 *
 * This module is read by the command line too, so it imports nothing of the server.
 */

/** How an import ended, for its data (the job's `state` is how it ran). */
export type ImportOutcome = "complete" | "incomplete" | "failed";

/** The counts of an import: every item of the input ends in exactly one of the last four. */
export interface ImportCounts {
  /** Items (and refused parts) met so far. */
  items: number;
  /** Items the store has acknowledged (created or replaced). */
  written: number;
  /** `mode=create`: items the collection holds already with the same content (same hash). */
  unchanged: number;
  /** `mode=create`: items the collection holds with other content, left as they are. */
  skipped: number;
  /** Items or parts not imported because of what they are or where their IRI lives. */
  refused: number;
}

/** One row of the exit status table. */
export interface ExitStatus {
  code: number;
  /** The outcome it stands for, or `usage`. */
  outcome: ImportOutcome | "usage";
  meaning: string;
}

/** `deno task import`'s exit statuses: the one table, for `--help`, docs and the code. */
export const IMPORT_EXIT_STATUSES: readonly ExitStatus[] = [
  {
    code: 0,
    outcome: "complete",
    meaning: "every item of the file is in the collection as the file has it: written, or " +
      "there already with the same content (counted unchanged)",
  },
  {
    code: 1,
    outcome: "failed",
    meaning: "nothing was imported (every item refused or skipped, or none in the file), or the " +
      "import stopped on an error (a syntax error, named graphs by subject without --graphs " +
      "ignore, the store failing: items counted written stay written), or the service refused " +
      "the request or could not be reached",
  },
  {
    code: 2,
    outcome: "usage",
    meaning: "a usage error: unknown option, missing or wrong argument",
  },
  {
    code: 3,
    outcome: "incomplete",
    meaning: "the import ran to its end but some items are not imported: refused (invalid) " +
      "or skipped (mode=create: " +
      "the collection holds the item with other content); each is listed",
  },
];

/** The exit status of an outcome (the table's row). */
export function exitStatusOf(outcome: ImportOutcome): number {
  return IMPORT_EXIT_STATUSES.find((row) => row.outcome === outcome)!.code;
}

/**
 * The outcome of a job in `state`: null while it runs. A job that ran to its end is
 * `incomplete` when anything was refused or skipped, `complete` otherwise.
 */
export function importOutcome(
  state: string,
  counts: Pick<ImportCounts, "refused" | "skipped">,
): ImportOutcome | null {
  if (state === "failed") return "failed";
  if (state !== "succeeded") return null;
  return counts.refused + counts.skipped > 0 ? "incomplete" : "complete";
}

/**
 * The summary both the job (`summary`) and the command line show:
 * `incomplete: 33 items, 1 written, 0 unchanged, 0 skipped, 32 refused`.
 */
export function importSummary(outcome: ImportOutcome | null, counts: ImportCounts): string {
  return `${outcome ?? "running"}: ${counts.items} items, ${counts.written} written, ` +
    `${counts.unchanged} unchanged, ${counts.skipped} skipped, ${counts.refused} refused`;
}

/** The table as `--help` prints it: one status a paragraph, wrapped. */
export function exitStatusText(width = 92): string {
  return IMPORT_EXIT_STATUSES.map((row) => {
    const words = `${row.code}  ${row.meaning}.`.split(" ");
    const lines: string[] = [];
    let line = "";
    for (const word of words) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = `   ${word}`;
      } else line = line ? `${line} ${word}` : word;
    }
    return [...lines, line].join("\n");
  }).join("\n");
}
