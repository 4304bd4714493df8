/**
 * The operators' command line for bulk import and export, talking to a running service:
 *
 *   deno task import FILE --collection C [--mode create|replace|upsert] [--base IRI]
 *   deno task export (--collection C | --workspace W) [--format nquads|trig] > FILE
 *
 * The service's URL and an admin token come from `--url`/`--token` or `SERVICE_URL` /
 * `SERVICE_TOKEN` (default http://127.0.0.1:8080, no token). The file is streamed both ways;
 * progress goes to stderr (a bar on a terminal, a line every few seconds otherwise). Exit
 * status: 0 done, 1 failed, 2 an import that ended with refused items (listed on stderr).
 */
import { parseArgs } from "node:util";
import type { ImportJob } from "./import_jobs.ts";
import { RDF_FORMATS } from "../rdf/formats.ts";

const USAGE = `usage:
  deno task import FILE --collection C [--mode create|replace|upsert] [--base IRI] [--url U] [--token T]
  deno task export (--collection C | --workspace W) [--format nquads|trig] [--url U] [--token T] > FILE`;

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
  const response = await fetch(base.replace(/\/$/, "") + path, { ...init, headers });
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
  if (!collection) throw new Error("--collection is required");
  const format = options.format ?? (/\.(nq|nquads)$/i.test(file) ? "nquads" : "trig");
  const type = RDF_FORMATS[format === "nquads" ? "nquads" : "trig"].mediaType;
  const size = (await Deno.stat(file)).size;
  const query = new URLSearchParams({ collection, mode: options.mode ?? "create" });
  if (options.base) query.set("base", options.base);
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
        (job ? `, ${job.written} written, ${job.existing} existing, ${job.refused} refused` : "") +
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
  progress.done(
    `import ${job.state}: ${job.items} graphs, ${job.written} written, ${job.existing} ` +
      `existing, ${job.refused} refused in ${progress.seconds().toFixed(1)} s (job ${job.id})`,
  );
  for (const error of job.errors) {
    const where = error.line === undefined ? "" : `line ${error.line}: `;
    console.error(`  ${where}${error.item ?? "-"} ${error.type ?? ""} ${error.message}`);
  }
  if (job.state !== "succeeded") return 1;
  return job.refused > 0 ? 2 : 0;
}

async function runExport(
  options: Record<string, string | undefined>,
  base: string,
  token?: string,
): Promise<number> {
  const query = new URLSearchParams();
  if (options.collection) query.set("collection", options.collection);
  if (options.workspace) query.set("workspace", options.workspace);
  const accept = RDF_FORMATS[options.format === "trig" ? "trig" : "nquads"].mediaType;
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

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      collection: { type: "string" },
      workspace: { type: "string" },
      mode: { type: "string" },
      base: { type: "string" },
      format: { type: "string" },
      url: { type: "string" },
      token: { type: "string" },
    },
  });
  const [command, file] = positionals;
  const base = values.url ?? Deno.env.get("SERVICE_URL") ?? "http://127.0.0.1:8080";
  const token = values.token ?? Deno.env.get("SERVICE_TOKEN") ?? undefined;
  if (command === "import" && file) return await runImport(file, values, base, token);
  if (command === "export") return await runExport(values, base, token);
  console.error(USAGE);
  return 1;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
