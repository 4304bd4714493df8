/**
 * `GET /metrics`: admin only when tokens are set, and parsed by an independent Prometheus
 * text-format parser: request counters move with requests, labelled by route pattern; the
 * backends' calls, the outbox backlog, the job gauges and the cache counters are there.
 */
import { strict as assert } from "node:assert";
import parsePrometheus from "parse-prometheus-text-format";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const ADMIN = "metrics-admin-token-0123456789";
const READER = "metrics-reader-token-012345678";

/** One sample as the parser gives it (histograms: buckets, count and sum). */
interface Sample {
  value?: string;
  count?: string;
  labels?: Record<string, string>;
}

interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

async function scrape(service: TestService): Promise<Map<string, Family>> {
  const response = await service.fetch("/metrics", {
    headers: { Authorization: `Bearer ${ADMIN}` },
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheus(await response.text()) as Family[];
  return new Map(families.map((family) => [family.name, family]));
}

/** The value of the sample of `name` whose labels include `labels`; 0 when there is none. */
function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value)
  );
  return Number(sample?.value ?? sample?.count ?? 0);
}

Deno.test({
  name: "metrics: admin only, request counters by route move, backends and state are there",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({
      env: { SERVICE_ADMIN_TOKEN: ADMIN, SERVICE_READER_TOKEN: READER },
    });
    try {
      await expectProblem(await service.fetch("/metrics"), 401, "unauthorized");
      await expectProblem(
        await service.fetch("/metrics", { headers: { Authorization: `Bearer ${READER}` } }),
        403,
        "forbidden",
      );
      const uri = uniqueItemUri("metrics");
      const created = await service.fetch(
        `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}`,
        {
          method: "PUT",
          headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "text/turtle" },
          body: `<${uri}> <http://purl.org/dc/terms/title> "t" .`,
        },
      );
      assert.equal(created.status, 201);
      await created.body?.cancel();

      const read = { method: "GET", route: "/api/item", status: "200" };
      const before = await scrape(service);
      for (let i = 0; i < 3; i++) {
        const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
          headers: { Authorization: `Bearer ${READER}` },
        });
        assert.equal(response.status, 200);
        await response.body?.cancel();
      }
      const after = await scrape(service);
      const requests = "rcs_http_requests_total";
      assert.ok(valueOf(after, requests, read) - valueOf(before, requests, read) >= 3);
      assert.equal(after.get(requests)?.type, "COUNTER");
      // Route patterns, never raw paths (with their query strings or item URIs).
      const routes = after.get(requests)!.metrics.map((metric) => metric.labels?.route);
      assert.ok(routes.includes("/metrics"), routes.join(", "));
      assert.ok(routes.every((route) => route === "unmatched" || route?.startsWith("/")));
      assert.ok(!routes.some((route) => route?.includes("?") || route?.includes("metrics-")));
      // The parser folds a histogram's labelled series into one set of buckets, so only the
      // families are checked here, not each series' count.
      assert.equal(after.get("rcs_http_request_duration_seconds")?.type, "HISTOGRAM");
      assert.equal(after.get("rcs_backend_call_duration_seconds")?.type, "HISTOGRAM");
      assert.equal(after.get("rcs_backend_errors_total")?.type, "COUNTER");

      assert.equal(after.get("rcs_index_outbox_backlog")?.type, "GAUGE");
      assert.ok(valueOf(after, "rcs_index_outbox_backlog") >= 0);
      assert.equal(valueOf(after, "rcs_index_job_running"), 0);
      assert.ok(after.has("rcs_index_job_items"));
      // The three reads are of an item the write put in the cache.
      const hits = "rcs_item_cache_hits_total";
      assert.equal(after.get(hits)?.type, "COUNTER");
      assert.ok(valueOf(after, hits) - valueOf(before, hits) >= 3);
      assert.ok(after.has("rcs_item_cache_misses_total"));
    } finally {
      await service.close();
    }
  },
});
