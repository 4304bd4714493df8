/**
 * `deno task test`: the whole suite in two runs. First every suite but those below, side by
 * side (`--parallel`); then two runs beside each other:
 * - the fault suite (tests/faults/), one file at a time, because its scenarios measure
 *   timelines (a store timeout, a readiness budget, a cold engine of their own warming up)
 *   that must not share the cores with the many suites of the first run;
 * - the row-cap suite, whose 10,540-item import keeps Virtuoso busy for minutes: beside it,
 *   the multi-instance scenarios on the same Virtuoso measured its lock waits (outboxes
 *   stalled for minutes) rather than the service.
 * The two touch no engine in common (the fault suite starts its own OpenSearch and Fuseki;
 * the row-cap suite loads the shared Fuseki and Virtuoso), and the row-cap suite's work is
 * mostly the engines' on one core, so the fault suite keeps the other; run one after the
 * other they took about nine minutes of CI's time, mostly with one core idle. The row-cap
 * suite's Virtuoso case (about two thirds of it) runs alone, its others and then the fault
 * suite beside it, so the fault suite shares the cores with one case, not three, and ends
 * sooner.
 * Both runs happen whatever the first one's outcome; the exit status is the first failure's.
 *
 * Arguments go to `deno test`: `--help` is `deno test --help`; with paths
 * (`deno task test tests/unit/`) only those run, in one parallel run; other options
 * (`--filter x`) apply to every run.
 */
const DENO = Deno.execPath();
const args = Deno.args;

async function denoTest(testArgs: string[]): Promise<number> {
  const child = new Deno.Command(DENO, {
    args: ["test", ...testArgs],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  return (await child.status).code;
}

if (args.includes("--help") || args.includes("-h")) {
  Deno.exit(await denoTest(["--help"]));
}

/** Whether an argument names a file or folder (an option's value, `--filter x`, does not). */
function isPath(arg: string): boolean {
  try {
    Deno.statSync(arg);
    return !arg.startsWith("-");
  } catch {
    return false;
  }
}

const paths = args.filter(isPath);
if (paths.length > 0) {
  Deno.exit(await denoTest(["--allow-all", "--parallel", ...args]));
}

/** Suites run after the others, beside each other (see above). */
const FAULTS = "tests/faults/";
const ROW_CAPS = "tests/api/store_row_caps_test.ts";
/** The row-cap suite's cases by store (`[row caps/virtuoso] …`), as `--filter` patterns. */
const ROW_CAPS_VIRTUOSO = "/\\[row caps\\/virtuoso\\]/";
const ROW_CAPS_OTHERS = "/\\[row caps\\/(embedded|sparql)\\]/";

const rest = await denoTest([
  "--allow-all",
  "--parallel",
  `--ignore=${FAULTS},${ROW_CAPS}`,
  ...args,
  "tests/",
]);
// The row-cap suite's Virtuoso case is the longest (its import alone is minutes of Virtuoso's
// time): it runs on its own, and the suite's other cases, then the fault suite, beside it.
// With a `--filter` of the caller's, the suite runs whole instead, beside the fault suite.
const filtered = args.includes("--filter");
const rowCaps = (filter: string) =>
  denoTest(["--allow-all", ...(filtered ? [] : ["--filter", filter]), ...args, ROW_CAPS]);
const after = await Promise.all([
  rowCaps(ROW_CAPS_VIRTUOSO),
  (async () => {
    const others = filtered ? 0 : await rowCaps(ROW_CAPS_OTHERS);
    const faults = await denoTest(["--allow-all", ...args, FAULTS]);
    return others || faults;
  })(),
]);
Deno.exit([rest, ...after].find((status) => status !== 0) ?? 0);
