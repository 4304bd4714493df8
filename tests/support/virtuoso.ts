/**
 * OpenLink Virtuoso for integration tests: the instance `scripts/virtuoso.sh` started, named
 * by `SERVICE_VIRTUOSO_*` (`eval "$(scripts/virtuoso.sh env)"`), and the one set-up step a
 * test service needs beyond SPARQL: its own metadata graph made private (graph-level
 * security through isql), as docs/backends.md tells an operator to do for theirs.
 */

/** Environment of a service on that Virtuoso, or undefined when none is configured. */
export function virtuosoServiceEnv(): Record<string, string> | undefined {
  const get = (name: string) => Deno.env.get(`SERVICE_VIRTUOSO_${name}`) ?? "";
  if (!get("QUERY_URL") || !get("UPDATE_URL") || !get("GSP_URL")) return undefined;
  return {
    SERVICE_STORE_BACKEND: "sparql",
    SERVICE_SPARQL_QUERY_URL: get("QUERY_URL"),
    SERVICE_SPARQL_UPDATE_URL: get("UPDATE_URL"),
    SERVICE_SPARQL_GSP_URL: get("GSP_URL"),
    SERVICE_SPARQL_USER: get("USER"),
    SERVICE_SPARQL_PASSWORD: get("PASSWORD"),
    SERVICE_SPARQL_AUTH: "digest",
    SERVICE_SPARQL_READER_USER: get("READER"),
    SERVICE_SPARQL_READER_PASSWORD: get("PASSWORD"),
    RCS_TEST_VIRTUOSO_SQL: get("SQL"),
  };
}

/** The message the suites print when no Virtuoso is configured. */
export const VIRTUOSO_SKIPPED =
  'set SERVICE_VIRTUOSO_QUERY_URL etc. (scripts/virtuoso.sh start; eval "$(scripts/virtuoso.sh env)")';

/**
 * Puts `graph` into Virtuoso's private graph group, so that only accounts with private
 * permissions (the service's own, not the user-query account) read it. `sql` is the
 * instance's isql address (`RCS_TEST_VIRTUOSO_SQL`).
 */
export async function makeGraphPrivate(sql: string, graph: string): Promise<void> {
  const output = await new Deno.Command("isql-vt", {
    args: [
      sql,
      "dba",
      Deno.env.get("VIRTUOSO_DBA_PASSWORD") ?? "dba",
      `exec=DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', '${graph}');`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success || /\*\*\* Error/.test(text)) {
    throw new Error(`isql-vt could not make ${graph} private:\n${text}`);
  }
}
