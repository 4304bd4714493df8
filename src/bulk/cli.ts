/**
 * The operators' command line for bulk import and export, talking to a running service
 * (usage and exit codes in {@link IMPORT_USAGE} and {@link EXPORT_USAGE}; `--help` prints
 * them). The service's URL and an admin token come from `--url`/`--token` or `SERVICE_URL`
 * / `SERVICE_TOKEN` (default http://127.0.0.1:8080, no token). The file is streamed both
 * ways; progress goes to stderr (a bar on a terminal, a line every few seconds otherwise).
 */
import { parseArgs } from "node:util";
import type { ImportError, ImportJob } from "./import_job.ts";
import {
  exitStatusOf,
  exitStatusText,
  type ImportCounts,
  importOutcome,
  importSummary,
} from "./import_summary.ts";
import { formatFromFileName, RDF_FORMATS, type RdfFormat } from "../rdf/formats.ts";
import {
  FORMAT_NAMES,
  type ImportFormat,
  importFormatOf,
  importFormats,
  isQuadFormat,
  QUAD_FORMATS,
} from "../rdf/format_table.ts";

/** What an import reads, as `--format` names them: `nquads, trig, turtle, …`. */
const IMPORT_FORMAT_NAMES = importFormats("subject").join(", ");

/** The extensions an import knows FILE's format by: `.nq .trig .ttl …`. */
const IMPORT_EXTENSIONS = importFormats("subject")
  .flatMap((format) => RDF_FORMATS[format].extensions).join(" ");

/** The quad formats as the export's messages name them: `N-Quads (nquads) or TriG (trig)`. */
const EXPORT_FORMAT_NAMES = QUAD_FORMATS
  .map((format) => `${RDF_FORMATS[format].label} (${format})`).join(" or ");

const CONNECTION =
  `  --url URL            the service (default: $SERVICE_URL, else http://127.0.0.1:8080)
  --token TOKEN        an admin token (default: $SERVICE_TOKEN)
  -h, --help           this text`;

/** `deno task import --help`. */
export const IMPORT_USAGE = `usage: deno task import FILE --collection C [options]

Streams FILE into a collection of a running service (POST /api/admin/import).

  --collection C       the collection's URI (required)
  --mode M             create (default): an item the collection holds is left as it is,
                       counted unchanged when it holds the same triples (same canonical
                       hash), skipped when other ones; upsert: create or replace; replace:
                       every item must exist
  --items-by B         graph: each named graph is one item (N-Quads, TriG);
                       subject: each IRI subject with its blank nodes is one item (any RDF
                       dump). Default: graph for .nq/.trig unless --graphs is given,
                       subject for other formats
  --graphs G           by subject, triples in named graphs (N-Quads, TriG): refuse
                       (default: the import stops before writing anything, naming the
                       line) or ignore (graph names dropped, each triple goes to its
                       subject's item). Implies --items-by subject
  --format F           ${IMPORT_FORMAT_NAMES}, or an extension of one
                       (default: from FILE's extension:
                       ${IMPORT_EXTENSIONS})
  --base IRI           the base IRI of relative IRIs in FILE
${CONNECTION}

Every item ends written, unchanged, skipped or refused. When the import ends, one line on
stderr gives its outcome (complete, incomplete, failed: the exit status below) and how many
items ended each way; then every skipped or refused item, with its line and its reason.
Items are keyed by collection and IRI: an item of the same IRI in another collection is
neither in the way nor changed.

exit status:
${exitStatusText()}`;

/** `deno task export --help`. */
export const EXPORT_USAGE =
  `usage: deno task export (--collection C | --workspace W) [options] > FILE

Streams every item of a collection or workspace from a running service to stdout
(GET /api/admin/export), one named graph per item.

  --collection C       a collection's URI
  --workspace W        a workspace's URI (all its collections)
  --format F           ${EXPORT_FORMAT_NAMES}, the first by default: a
                       collection is many graphs, which Turtle or N-Triples cannot carry
${CONNECTION}

exit status: 0 done; 1 the export failed or the service could not be reached; 2 a usage
error (unknown option, missing or wrong argument).`;

/** A wrong command line: printed with the usage, exit status 2. */
class UsageError extends Error {}

/** Progress on stderr: redrawn in place on a terminal, a line now and then elsewhere. */
class Progress {
  readonly #terminal = Deno.stderr.isTerminal();
  readonly #started = performance.now();
  #lastLine = 0;

  show(text: string, force = false): void {
    const now = performance.now();
    if (this.#terminal) {
      this.#write(`\r\x1b[2K${text}`);
    } else if (force || now - this.#lastLine > 5000) {
      this.#lastLine = now;
      this.#write(`${text}\n`);
    }
  }

  done(text: string): void {
    if (this.#terminal) this.#write(`\r\x1b[2K`);
    this.#write(`${text}\n`);
  }

  seconds(): number {
    return (performance.now() - this.#started) / 1000;
  }

  #write(text: string): void {
    Deno.stderr.writeSync(new TextEncoder().encode(text));
  }
}

function bar(fraction: number, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Fetches from the service with the token, failing with the problem's detail. */
async function call(base: string, token: string | undefined, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  const url = base.replace(/\/$/, "") + path;
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Cannot reach the service at ${new URL(url).origin} (${reason}). Is it running? ` +
        "Set --url or SERVICE_URL to where it listens.",
    );
  }
  if (response.status >= 400) {
    const text = await response.text();
    let detail = text;
    try {
      const problem = JSON.parse(text);
      detail = `${problem.title}: ${problem.detail}`;
    } catch { /* not JSON: the text as it is */ }
    throw new Error(`${response.status} ${detail}`);
  }
  return response;
}

async function runImport(
  file: string,
  options: Record<string, string | undefined>,
  base: string,
  token?: string,
): Promise<number> {
  const collection = options.collection;
  if (!collection) throw new UsageError("--collection is required");
  const mode = options.mode ?? "create";
  if (!["create", "replace", "upsert"].includes(mode)) {
    throw new UsageError(`--mode ${mode}: use create, replace or upsert`);
  }
  const format = importFormat(file, options.format);
  const graphs = options.graphs;
  if (graphs !== undefined && graphs !== "refuse" && graphs !== "ignore") {
    throw new UsageError(`--graphs ${graphs}: use refuse or ignore`);
  }
  const itemsBy = options["items-by"] ??
    (isQuadFormat(format) && graphs === undefined ? "graph" : "subject");
  if (itemsBy !== "graph" && itemsBy !== "subject") {
    throw new UsageError(`--items-by ${itemsBy}: use graph or subject`);
  }
  if (graphs !== undefined && itemsBy !== "subject") {
    throw new UsageError(
      "--graphs applies to --items-by subject: by graph, each named graph is an item",
    );
  }
  if (itemsBy === "graph" && !isQuadFormat(format)) {
    const quadLabels = QUAD_FORMATS.map((quad) => RDF_FORMATS[quad].label).join(" or ");
    throw new UsageError(
      `--items-by graph reads ${quadLabels}; ${RDF_FORMATS[format].label} has no named ` +
        "graphs: use --items-by subject",
    );
  }
  const type = RDF_FORMATS[format].mediaType;
  const size = (await Deno.stat(file)).size;
  const query = new URLSearchParams({ collection, mode, itemsBy });
  if (options.base) query.set("base", options.base);
  if (graphs) query.set("graphs", graphs);
  const handle = await Deno.open(file);
  const progress = new Progress();
  let sent = 0;
  const counted = handle.readable.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
  const show = (job?: ImportJob) => {
    const read = job?.bytesRead ?? sent;
    const rate = read / Math.max(0.001, progress.seconds());
    progress.show(
      `${bar(read / Math.max(1, size))} ${mib(read)} of ${mib(size)}` +
        (job ? `, ${importSummary(null, countsOf(job))}` : "") +
        ` (${mib(rate)}/s)`,
    );
  };
  // The service answers once it has read the whole body; until then the job is found in the
  // list of imports (one runs per collection at a time).
  let answered = false;
  const answer = call(base, token, `/api/admin/import?${query}`, {
    method: "POST",
    headers: { "Content-Type": type, "Content-Length": String(size) },
    body: counted,
  }).finally(() => answered = true);
  while (!answered) {
    await Promise.race([answer.catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
    if (answered) break;
    const jobs: ImportJob[] = await (
      await call(base, token, "/api/admin/import/jobs?limit=20")
    ).json();
    show(jobs.find((job) => job.collection === collection && job.state === "running"));
  }
  let job: ImportJob = await (await answer).json();
  while (job.state === "running" || job.state === "queued") {
    show(job);
    await new Promise((resolve) => setTimeout(resolve, 500));
    job = await (await call(base, token, `/api/admin/import/jobs/${job.id}`)).json();
  }
  // An older service's job has no outcome: it is worked out from the same counts.
  const counts = countsOf(job);
  const outcome = job.outcome ?? importOutcome(job.state, counts) ?? "failed";
  progress.done(
    `import ${importSummary(outcome, counts)} in ${progress.seconds().toFixed(1)} s ` +
      `(job ${job.id})`,
  );
  for (const error of job.errors) console.error(`  ${errorLine(error)}`);
  return exitStatusOf(outcome);
}

/** The counts of a job, with 0 for what an older service does not count. */
function countsOf(job: ImportJob): ImportCounts {
  return {
    items: job.items,
    written: job.written,
    unchanged: job.unchanged ?? 0,
    skipped: job.skipped ?? job.existing ?? 0,
    refused: job.refused,
  };
}

/** One listed item: `line 12: <iri> item-exists (collection <c>): why (3 times)`. */
function errorLine(error: ImportError): string {
  const where = error.line === undefined ? "" : `line ${error.line}: `;
  const item = error.item === null ? "-" : `<${error.item}>`;
  const held = error.collection === undefined ? "" : ` (collection <${error.collection}>)`;
  const times = (error.count ?? 1) > 1 ? ` (${error.count} times)` : "";
  return `${where}${item} ${error.type ?? "error"}${held}: ${error.message}${times}`;
}

/** The format of FILE: `--format`, else its extension; a usage error when neither says. */
function importFormat(file: string, given: string | undefined): ImportFormat {
  const format = importFormatOf(
    given === undefined ? formatFromFileName(file) : namedFormat(given),
  );
  if (!format) {
    throw new UsageError(
      given === undefined
        ? `Cannot tell the format of ${file} from its extension: give --format`
        : `--format ${given}: use one of ${IMPORT_FORMAT_NAMES}`,
    );
  }
  return format;
}

/** The format `--format` names: by its name (`turtle`) or an extension of it (`ttl`). */
function namedFormat(given: string): RdfFormat | "json" | undefined {
  const byName = FORMAT_NAMES.find((format) => format === given);
  return byName ?? formatFromFileName(`.${given}`);
}

async function runExport(
  options: Record<string, string | undefined>,
  base: string,
  token?: string,
): Promise<number> {
  const query = new URLSearchParams();
  if (options.collection) query.set("collection", options.collection);
  if (options.workspace) query.set("workspace", options.workspace);
  if (!options.collection === !options.workspace) {
    throw new UsageError("give one of --collection and --workspace");
  }
  const given = options.format ?? QUAD_FORMATS[0];
  const format = namedFormat(given);
  if (!isQuadFormat(format)) {
    throw new UsageError(
      `--format ${given}: an export is ${EXPORT_FORMAT_NAMES}, one named graph per ` +
        "item; Turtle and N-Triples have no graphs (download one item as Turtle with " +
        "GET /api/item.ttl)",
    );
  }
  const accept = RDF_FORMATS[format].mediaType;
  const response = await call(base, token, `/api/admin/export?${query}`, {
    headers: { Accept: accept },
  });
  const progress = new Progress();
  let bytes = 0;
  const counted = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        progress.show(`${mib(bytes)} (${mib(bytes / Math.max(0.001, progress.seconds()))}/s)`);
        controller.enqueue(chunk);
      },
    }),
  );
  await counted.pipeTo(Deno.stdout.writable, { preventClose: true });
  progress.done(`export done: ${mib(bytes)} in ${progress.seconds().toFixed(1)} s`);
  return 0;
}

/** Runs the command line `args`; answers the exit status. */
export async function main(args: string[]): Promise<number> {
  const command = args[0];
  const usage = command === "export" ? EXPORT_USAGE : IMPORT_USAGE;
  let parsed;
  try {
    parsed = parseArgs({
      args: args.slice(1),
      allowPositionals: true,
      strict: true,
      options: {
        collection: { type: "string" },
        workspace: { type: "string" },
        mode: { type: "string" },
        base: { type: "string" },
        format: { type: "string" },
        "items-by": { type: "string" },
        graphs: { type: "string" },
        url: { type: "string" },
        token: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const base = values.url ?? Deno.env.get("SERVICE_URL") ?? "http://127.0.0.1:8080";
  const token = values.token ?? Deno.env.get("SERVICE_TOKEN") ?? undefined;
  const options = values as Record<string, string | undefined>;
  try {
    if (command === "import") {
      if (positionals.length !== 1) throw new UsageError("give one FILE to import");
      if (values.workspace) throw new UsageError("--workspace is for export");
      return await runImport(positionals[0], options, base, token);
    }
    if (command === "export") {
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
      for (const name of ["mode", "base", "items-by", "graphs"]) {
        if (options[name] !== undefined) throw new UsageError(`--${name} is for import`);
      }
      return await runExport(options, base, token);
    }
    throw new UsageError(`unknown command ${command ?? "(none)"}: import or export`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${usage}`);
    return 2;
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
