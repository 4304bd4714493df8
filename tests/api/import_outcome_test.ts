/**
 * Imports that never leave anything out quietly, through the real command line
 * (`deno task import`) against a started service, on the embedded store and on Fuseki: two
 * vocabularies shipped as N-Quads (every triple in the vocabulary's named graph, as W3C ships
 * them) imported by subject with their graph names dropped (`--graphs ignore`), each into
 * its own collection. Every row of the exit status table is met: 0 when every item is
 * written or already there the same (unchanged), 3 when some are skipped (other content)
 * or refused, 1 when nothing was imported or the service cannot be reached, 2 on a usage
 * error; the summary says the same as the job. An IRI the other collection holds is an item
 * of its own in each collection (items are keyed by collection and IRI). The table in `--help` is the one docs/api.md shows.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_WORKSPACE,
  startTestService,
  type StoreBackend,
  storeBackends,
  type TestService,
} from "../support/service.ts";
import type { ImportJob } from "../../src/bulk/import_jobs.ts";
import { IMPORT_EXIT_STATUSES } from "../../src/bulk/import_summary.ts";
import { IMPORT_USAGE } from "../../src/bulk/cli.ts";

const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
const OWL_CLASS = "<http://www.w3.org/2002/07/owl#Class>";

/** A vocabulary as N-Quads: `terms` classes, each with a label and a comment, in its graph. */
function vocabulary(ns: string, terms: string[], extra = ""): string {
  const graph = `<${ns}>`;
  return `<${ns}> <${RDFS}label> "The vocabulary" ${graph} .\n` +
    terms.map((term) =>
      `<${ns}${term}> ${RDF_TYPE} ${OWL_CLASS} ${graph} .\n` +
      `<${ns}${term}> <${RDFS}label> "${term}" ${graph} .\n` +
      `<${ns}${term}> <${RDFS}comment> "A ${term}." ${graph} .\n`
    ).join("") + extra;
}

async function newCollection(service: TestService, name: string): Promise<string> {
  const uri = `https://data.example.org/collection/${name}-${crypto.randomUUID()}`;
  const made = await service.fetch("/api/admin/collections", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      workspace: DEMO_WORKSPACE,
      uri,
      label: name,
      index: { name: `${name}-${crypto.randomUUID().slice(0, 8)}` },
    }),
  });
  assert.equal(made.status, 201, await made.clone().text());
  return uri;
}

interface Run {
  code: number;
  stderr: string;
}

/** `deno task import ARGS` against the service, as an operator runs it. */
async function cli(service: TestService, ...args: string[]): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "import", ...args, "--url", service.url],
    cwd: new URL("../../", import.meta.url),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

/** The newest import job of `collection`. */
async function lastJob(service: TestService, collection: string): Promise<ImportJob> {
  const jobs: ImportJob[] = await (await service.fetch("/api/admin/import/jobs?limit=20")).json();
  const job = jobs.find((job) => job.collection === collection);
  assert.ok(job, `a job of ${collection}`);
  return job;
}

/** The job's counts add up, and the command line printed the job's own summary. */
function assertSummary(job: ImportJob, run: Run): void {
  assert.equal(job.items, job.written + job.unchanged + job.skipped + job.refused);
  assert.equal(job.existing, job.unchanged + job.skipped);
  assert.match(run.stderr, new RegExp(`import ${job.summary.replace(/[()]/g, "\\$&")} in `));
}

for (const backend of storeBackends()) {
  outcomeTest(
    backend,
    "vocabularies in N-Quads by subject: every row of the exit status table",
    async (service, dir) => {
      const run = crypto.randomUUID().slice(0, 8);
      const a = `https://vocab-${run}.example.org/a/`;
      const b = `https://vocab-${run}.example.org/b/`;
      const first = await newCollection(service, "vocab-a");
      const second = await newCollection(service, "vocab-b");
      const fileA = `${dir}/a.nq`;
      await Deno.writeTextFile(fileA, vocabulary(a, ["Person", "Agent", "Document"]));

      // 2: --graphs says what items by subject do with graph names; by graph it means nothing.
      const usage = await cli(
        service,
        fileA,
        "--collection",
        first,
        "--items-by",
        "graph",
        "--graphs",
        "ignore",
      );
      assert.equal(usage.code, 2, usage.stderr);
      assert.match(usage.stderr, /--graphs applies to --items-by subject/);

      // 1: by subject without --graphs, the first triple in a named graph stops the import
      // before anything is written, naming its line and the way out.
      const refused = await cli(service, fileA, "--collection", first, "--items-by", "subject");
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /^import failed: /m);
      assert.match(refused.stderr, /line 1: - named-graphs-not-allowed: .*--graphs ignore/);
      const refusedJob = await lastJob(service, first);
      assert.equal(refusedJob.outcome, "failed");
      assert.equal(refusedJob.written, 0);
      assert.equal(refusedJob.errors.at(-1)?.line, 1);

      // 0: with the graph names dropped, each subject is an item (4: the vocabulary itself too).
      const imported = await cli(service, fileA, "--collection", first, "--graphs", "ignore");
      assert.equal(imported.code, 0, imported.stderr);
      const importedJob = await lastJob(service, first);
      assert.deepEqual(
        [importedJob.outcome, importedJob.itemsBy, importedJob.graphs, importedJob.written],
        ["complete", "subject", "ignore", 4],
      );
      assert.match(
        imported.stderr,
        /import complete: 4 items, 4 written, 0 unchanged, 0 skipped, 0 refused in /,
      );
      assertSummary(importedJob, imported);
      const person = await service.fetch(
        `/api/item.nt?collection=${encodeURIComponent(first)}&item=${
          encodeURIComponent(`${a}Person`)
        }`,
      );
      assert.equal((await person.text()).trim().split("\n").length, 3);

      // 0: the same file again: nothing written, every item unchanged (same canonical hash).
      const again = await cli(service, fileA, "--collection", first, "--graphs", "ignore");
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stderr,
        /import complete: 4 items, 0 written, 4 unchanged, 0 skipped, 0 refused/,
      );
      assertSummary(await lastJob(service, first), again);

      // 3: one term changed: skipped (mode=create leaves it), named with its collection.
      const changed = `${dir}/a-changed.nq`;
      await Deno.writeTextFile(
        changed,
        vocabulary(a, ["Person", "Agent", "Document"]).replace('"A Person."', '"A human."'),
      );
      const skipped = await cli(service, changed, "--collection", first, "--graphs", "ignore");
      assert.equal(skipped.code, 3, skipped.stderr);
      assert.match(
        skipped.stderr,
        /import incomplete: 4 items, 0 written, 3 unchanged, 1 skipped, 0 refused/,
      );
      assert.ok(
        skipped.stderr.includes(`<${a}Person> item-exists (collection <${first}>): `),
        skipped.stderr,
      );
      const skippedJob = await lastJob(service, first);
      assert.deepEqual(skippedJob.errors.map((e) => [e.item, e.type, e.collection]), [
        [`${a}Person`, "item-exists", first],
      ]);
      assertSummary(skippedJob, skipped);

      // 1: mode=replace into the second collection, which holds none of the items: each is
      // refused (item-not-found), nothing imported.
      const none = await cli(
        service,
        fileA,
        "--collection",
        second,
        "--graphs",
        "ignore",
        "--mode",
        "replace",
      );
      assert.equal(none.code, 1, none.stderr);
      assert.match(
        none.stderr,
        /import failed: 4 items, 0 written, 0 unchanged, 0 skipped, 4 refused/,
      );
      const noneJob = await lastJob(service, second);
      assert.deepEqual(
        noneJob.errors.filter((e) => e.item !== null).map((e) => e.type),
        ["item-not-found", "item-not-found", "item-not-found", "item-not-found"],
      );
      assert.match(noneJob.errors.at(-1)?.message ?? "", /Nothing was imported/);

      // 0: a second vocabulary that says something of the first one's Person: items are
      // keyed by (collection, IRI), so the second collection gets a Person of its own and
      // the first collection's Person is as it was.
      const fileB = `${dir}/b.nq`;
      await Deno.writeTextFile(
        fileB,
        vocabulary(
          b,
          ["Organization"],
          `<${a}Person> <${RDFS}seeAlso> <${b}Organization> <${b}> .\n`,
        ),
      );
      const shared = await cli(service, fileB, "--collection", second, "--graphs", "ignore");
      assert.equal(shared.code, 0, shared.stderr);
      assert.match(
        shared.stderr,
        /import complete: 3 items, 3 written, 0 unchanged, 0 skipped, 0 refused/,
      );
      assertSummary(await lastJob(service, second), shared);
      const personIn = (collection: string) =>
        service.fetch(
          `/api/item.nt?collection=${encodeURIComponent(collection)}&item=${
            encodeURIComponent(`${a}Person`)
          }`,
        ).then((response) => response.text());
      assert.doesNotMatch(await personIn(first), /seeAlso/);
      assert.match(await personIn(first), /A Person\./);
      assert.match(await personIn(second), /seeAlso/);
      assert.doesNotMatch(await personIn(second), /A Person\./);

      // 1: no service there.
      const down = await new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "import", fileA, "--collection", first, "--url", "http://127.0.0.1:9"],
        cwd: new URL("../../", import.meta.url),
        stderr: "piped",
        stdout: "piped",
      }).output();
      assert.equal(down.code, 1);
      assert.match(new TextDecoder().decode(down.stderr), /Cannot reach the service/);
    },
  );
}

Deno.test("[import outcome] --help's exit status table is docs/api.md's", () => {
  const docs = Deno.readTextFileSync(new URL("../../docs/api.md", import.meta.url));
  const section = docs.slice(docs.indexOf("**From the command line**"));
  const rows = section.slice(0, section.indexOf("\n\n", section.indexOf("| Exit status"))).split(
    "\n",
  )
    .filter((line) => /^\| `\d` +\|/.test(line))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim().replace(/`/g, "")));
  assert.deepEqual(
    rows,
    IMPORT_EXIT_STATUSES.map((row) => [String(row.code), row.outcome, `${row.meaning}.`]),
  );
  for (const row of IMPORT_EXIT_STATUSES) {
    const words = row.meaning.split(" ");
    const help = IMPORT_USAGE.replace(/\s+/g, " ");
    assert.ok(help.includes(`${row.code} ${words.join(" ")}.`), `${row.code} in --help`);
  }
});

function outcomeTest(
  backend: StoreBackend,
  name: string,
  fn: (service: TestService, dir: string) => Promise<void>,
) {
  Deno.test({
    name: `[import outcome/${backend.name}] ${name}`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({ env: backend.env });
      const dir = await Deno.makeTempDir({ prefix: "rcs-import-outcome-" });
      try {
        await fn(service, dir);
      } finally {
        await service.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
