/**
 * Test support for the real OpenSearch node started by `scripts/opensearch.sh start`.
 *
 * Integration tests that need OpenSearch run only when `SERVICE_OPENSEARCH_URL` is set and
 * are registered as ignored otherwise, with {@link OPENSEARCH_SKIP_MESSAGE} printed once.
 */
import { CONFIG_DEFAULTS } from "./config_defaults.ts";

/** The one line printed when the OpenSearch suite cannot run. */
export const OPENSEARCH_SKIP_MESSAGE =
  "OpenSearch suite skipped: set SERVICE_OPENSEARCH_URL (scripts/opensearch.sh start)";

/** The test node's base URL, or undefined when the OpenSearch tests are to be skipped. */
export function openSearchUrl(): string | undefined {
  const url = Deno.env.get("SERVICE_OPENSEARCH_URL")?.trim();
  return url ? url.replace(/\/+$/, "") : undefined;
}

let printed = false;

/** Prints {@link OPENSEARCH_SKIP_MESSAGE} once per test process. */
export function reportOpenSearchSkipped(): void {
  if (printed) return;
  printed = true;
  console.log(OPENSEARCH_SKIP_MESSAGE);
}

/** An index name prefix no other test run uses: `rcs-test-<time>-<random>-`. */
export function uniqueIndexPrefix(label = "test"): string {
  const random = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  return `rcs-${label}-${Date.now().toString(36)}-${random}-`;
}

/** Deletes every index whose name starts with `prefix` (aliases go with their indices). */
export async function deleteIndicesWithPrefix(url: string, prefix: string): Promise<void> {
  const response = await fetch(
    `${url}/_cat/indices/${encodeURIComponent(prefix)}*?format=json&h=index`,
  );
  const rows = response.ok ? await response.json() as { index: string }[] : [];
  if (!response.ok) await response.body?.cancel();
  for (const { index } of rows) {
    if (!index.startsWith(prefix)) continue;
    const deleted = await fetch(`${url}/${encodeURIComponent(index)}`, { method: "DELETE" });
    await deleted.body?.cancel();
  }
}

/** A search engine an API suite runs against. */
export interface SearchBackend {
  name: "embedded" | "opensearch";
  /** True when the engine is not available here (the skip line has been printed). */
  ignore: boolean;
  /** Environment for a service on this engine; a fresh index prefix each call. */
  env(): Record<string, string>;
}

/** The engines to run API suites on: embedded always, OpenSearch when configured. */
export function searchBackends(label: string): SearchBackend[] {
  const url = openSearchUrl();
  if (!url) reportOpenSearchSkipped();
  return [
    { name: "embedded", ignore: false, env: () => ({}) },
    {
      name: "opensearch",
      ignore: url === undefined,
      env: () => ({
        SERVICE_SEARCH_BACKEND: "opensearch",
        SERVICE_OPENSEARCH_URL: url ?? "",
        SERVICE_OPENSEARCH_INDEX_PREFIX: uniqueIndexPrefix(label),
      }),
    },
  ];
}

/**
 * The engine settings an `OpenSearchEngine` built by hand needs, at the configuration's
 * defaults: read from the schema, the one place defaults are written.
 */
export const OPENSEARCH_DEFAULTS = {
  rawSearchTimeoutMs: CONFIG_DEFAULTS.search.opensearch.dsl.timeoutMs,
  timeouts: CONFIG_DEFAULTS.search.opensearch.timeouts,
  failFast: CONFIG_DEFAULTS.failFast,
};
