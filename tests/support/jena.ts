/**
 * Apache Jena as an implementation the service did not write: its jars come from Maven
 * Central through scripts/jena_client.sh (`JENA_CLIENT_LIB` names the directory; the CI sets
 * it), and the programs in tests/clients/ run with `java` as single-file sources.
 */

/** Where the jars are, or why Jena cannot run here (`missing`). */
export interface JenaJars {
  lib: string;
  missing?: string;
}

/** The directory scripts/jena_client.sh fills, and whether it holds `jar` (a name prefix). */
export function jenaJars(jar = "jena-arq-"): JenaJars {
  const cacheDir = Deno.env.get("RCS_CACHE_DIR") ??
    `${Deno.env.get("HOME") ?? "/tmp"}/.cache/rdf-content-service`;
  const lib = Deno.env.get("JENA_CLIENT_LIB") ?? `${cacheDir}/jena-client/5.6.0/lib`;
  if (!commandRuns("java", ["-version"])) return { lib, missing: "java does not run here" };
  let present = false;
  try {
    present = [...Deno.readDirSync(lib)].some((entry) => entry.name.startsWith(jar));
  } catch {
    // no such directory: said below
  }
  return present
    ? { lib }
    : { lib, missing: `no ${jar}*.jar in ${lib} (scripts/jena_client.sh fetches Jena's jars)` };
}

/** Whether `command args` runs and succeeds. */
export function commandRuns(command: string, args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

/** A graph changed by Jena's RDF Patch applier (tests/clients/RdfPatchApply.java). */
export interface JenaPatched {
  /** The resulting graph, N-Triples as Jena writes it. */
  ntriples: string;
  /** Distinct blank nodes Jena read in the graph before the patch. */
  blankNodesLoaded: number;
}

/** Applies `patch` (RDF Patch text) to `ntriples` with Jena's jena-rdfpatch module. */
export async function applyRdfPatchWithJena(
  lib: string,
  ntriples: string,
  patch: string,
): Promise<JenaPatched> {
  const dir = await Deno.makeTempDir({ prefix: "rcs-rdfpatch-" });
  try {
    await Deno.writeTextFile(`${dir}/graph.nt`, ntriples);
    await Deno.writeTextFile(`${dir}/change.rdfp`, patch);
    const result = await new Deno.Command("java", {
      args: [
        "-cp",
        `${lib}/*`,
        new URL("../clients/RdfPatchApply.java", import.meta.url).pathname,
        `${dir}/graph.nt`,
        `${dir}/change.rdfp`,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(result.stderr);
    if (!result.success) throw new Error(`Jena could not apply the patch: ${stderr}`);
    const loaded = /blank nodes loaded: (\d+)/.exec(stderr);
    if (!loaded) throw new Error(`RdfPatchApply said nothing of the graph it read: ${stderr}`);
    return {
      ntriples: new TextDecoder().decode(result.stdout),
      blankNodesLoaded: Number(loaded[1]),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
