/**
 * What a connection of its own costs a SPARQL update (src/sparql_protocol/client.ts sends
 * every update on a new connection, so that nothing resends it): one client sends small
 * `INSERT DATA` updates to the store one after another, over one kept-alive connection and
 * over a new connection each, alternating rounds; wall time and the store's CPU time per
 * update (from /proc, when the store runs here).
 *
 *   deno run -A bench/update_connection_bench.ts [updates per round, default 1000]
 *
 * Needs SERVICE_SPARQL_UPDATE_URL (scripts/fuseki.sh start); the graph it writes is dropped.
 */
import { cpuSeconds, findProcess } from "./lib/process_cpu.ts";

const updateUrl = Deno.env.get("SERVICE_SPARQL_UPDATE_URL");
if (!updateUrl) {
  console.log("(skipped: set SERVICE_SPARQL_UPDATE_URL)");
  Deno.exit(0);
}
const perRound = Number(Deno.args[0] ?? 1000);
const graph = `urn:rcs-bench:update-connection:${crypto.randomUUID()}`;
const store = findProcess("fuseki-server") ?? findProcess("virtuoso-t");

async function send(client: Deno.HttpClient, body: string): Promise<void> {
  const response = await fetch(updateUrl!, {
    method: "POST",
    headers: { "Content-Type": "application/sparql-update" },
    body,
    client,
  });
  if (!response.ok) throw new Error(`update: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
}

async function round(client: Deno.HttpClient, count: number) {
  const cpuBefore = store ? cpuSeconds(store) : undefined;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await send(client, `INSERT DATA { GRAPH <${graph}> { <urn:s> <urn:p> ${i} } }`);
  }
  const ms = performance.now() - started;
  const cpuAfter = store ? cpuSeconds(store) : undefined;
  return {
    msPerUpdate: ms / count,
    storeCpuMsPerUpdate: cpuBefore !== undefined && cpuAfter !== undefined
      ? (cpuAfter - cpuBefore) * 1000 / count
      : undefined,
  };
}

const kept = Deno.createHttpClient({});
const fresh = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
try {
  await round(kept, 200); // warm-up: the JVM compiles its hot paths
  await round(fresh, 200);
  const rows: { kind: string; msPerUpdate: number; storeCpuMsPerUpdate?: number }[] = [];
  for (let n = 0; n < 3; n++) {
    rows.push({ kind: "kept-alive connection", ...await round(kept, perRound) });
    rows.push({ kind: "new connection each", ...await round(fresh, perRound) });
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `| connection | ms per update (median of 3 rounds of ${perRound}) | store CPU ms per update |`,
  );
  console.log("|---|---|---|");
  for (const kind of ["kept-alive connection", "new connection each"]) {
    const mine = rows.filter((row) => row.kind === kind);
    const cpu = mine.map((row) => row.storeCpuMsPerUpdate).filter((v) => v !== undefined);
    console.log(
      `| ${kind} | ${median(mine.map((row) => row.msPerUpdate)).toFixed(2)} | ${
        cpu.length ? median(cpu as number[]).toFixed(2) : "–"
      } |`,
    );
  }
} finally {
  await send(kept, `DROP SILENT GRAPH <${graph}>`).catch(() => {});
  kept.close();
  fresh.close();
}
