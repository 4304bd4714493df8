/**
 * The hash of 10k- and 100k-triple JSON-LD bodies end to end over HTTP, beside the bare
 * library pipeline (jsonld.toRDF + canonicalise + digest, bench/hash_pipeline.ts) in the
 * same run. Goal (issue "Hash and initialise"): end to end within 2× of the bare pipeline,
 * and 100k triples under 2 s.
 */
import { benchHashPipeline, jsonLdBody } from "./hash_pipeline.ts";
import { startServiceProcess } from "../tests/support/process.ts";
import { DEMO_COLLECTION } from "../tests/support/service.ts";

const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs both measurements for each size; returns markdown table lines. */
export async function benchHash(sizes = [10_000, 100_000]): Promise<string[]> {
  const dataDir = await Deno.makeTempDir({ prefix: "rcs-hash-bench-" });
  const service = await startServiceProcess({
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_MAX_BODY: String(512 * 1024 * 1024),
  });
  const rows: string[] = [];
  try {
    for (const size of sizes) {
      const body = jsonLdBody(size);
      const bare: number[] = [];
      const http: number[] = [];
      await benchHashPipeline(size); // warm-up, both sides
      await hashOverHttp(service.url, body);
      for (let run = 0; run < RUNS; run++) {
        bare.push((await benchHashPipeline(size)).totalMs);
        const started = performance.now();
        await hashOverHttp(service.url, body);
        http.push(performance.now() - started);
      }
      const b = median(bare);
      const h = median(http);
      rows.push(
        `| ${size.toLocaleString("en")} | ${(body.length / 1e6).toFixed(1)} MB | ${
          b.toFixed(0)
        } | ${h.toFixed(0)} | ${(h / b).toFixed(2)} |`,
      );
    }
  } finally {
    await service.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
  return rows;
}

async function hashOverHttp(url: string, body: string): Promise<void> {
  const response = await fetch(
    `${url}/api/item/hash?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
    { method: "POST", headers: { "Content-Type": "application/ld+json" }, body },
  );
  const result = await response.json();
  if (response.status !== 200) throw new Error(`hash failed: ${JSON.stringify(result)}`);
}

if (import.meta.main) {
  console.log("| triples | body | bare pipeline ms | HTTP end to end ms | ratio |");
  console.log("|---|---|---|---|---|");
  for (const row of await benchHash()) console.log(row);
}
