/**
 * A closed-loop HTTP load generator: `concurrency` workers each send a request, wait for
 * the whole answer, and send the next, for a fixed duration. Reports throughput and latency
 * percentiles. It runs in the bench process, the server in another.
 */

/** Builds the n-th request of a worker. */
export type RequestFactory = (worker: number, n: number) => { url: string; init?: RequestInit };

/** What one load run measured. */
export interface LoadResult {
  requests: number;
  errors: number;
  /** Status codes outside 2xx/304, by code. */
  statuses: Record<number, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs the load for `durationMs` (after `warmupMs` of unmeasured requests). */
export async function runLoad(
  makeRequest: RequestFactory,
  options: {
    concurrency: number;
    durationMs: number;
    warmupMs?: number;
    /** Called as measuring starts and as it stops (for side measurements such as CPU). */
    onMeasure?: { start(): void; stop(): void };
  },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let measuring = false;
  let stop = false;
  const worker = async (id: number) => {
    for (let n = 0; !stop; n++) {
      const { url, init } = makeRequest(id, n);
      const started = performance.now();
      try {
        const response = await fetch(url, init);
        await response.arrayBuffer();
        if (!measuring) continue;
        latencies.push(performance.now() - started);
        if (response.status >= 300 && response.status !== 304) {
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        }
      } catch {
        if (measuring) errors++;
      }
    }
  };
  const workers = Array.from({ length: options.concurrency }, (_, id) => worker(id));
  await new Promise((resolve) => setTimeout(resolve, options.warmupMs ?? 500));
  measuring = true;
  options.onMeasure?.start();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  measuring = false;
  options.onMeasure?.stop();
  const seconds = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    statuses,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

/** One line of a results table. */
export function formatLoad(name: string, result: LoadResult, baseline?: LoadResult): string {
  const ratio = baseline ? (result.perSecond / baseline.perSecond).toFixed(2) : "1.00";
  const bad = Object.keys(result.statuses).length || result.errors
    ? ` (errors ${result.errors}, statuses ${JSON.stringify(result.statuses)})`
    : "";
  return `| ${name} | ${result.perSecond.toFixed(0)} | ${result.p50Ms.toFixed(2)} | ${
    result.p99Ms.toFixed(2)
  } | ${ratio}${bad} |`;
}
