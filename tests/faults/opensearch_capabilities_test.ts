/**
 * The engine capability check at start: a node without the analysis-common module (the
 * minimal distribution; its language analyzers are what the default mappings use) makes
 * the service refuse to start, naming the module. The shared test node has the module; a
 * stand-in node plays one without it (only the `_nodes` answer matters here).
 */
import { strict as assert } from "node:assert";
import { freePort } from "../support/ports.ts";
import { OPENSEARCH_DEFAULTS, openSearchUrl } from "../support/opensearch.ts";
import { OpenSearchEngine } from "../../src/search_opensearch/opensearch_engine.ts";

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname;
const LIMITS = { maxResultsLimit: 100, maxWindow: 100, trackTotalHits: 10_000 };

Deno.test({
  name: "[faults/capabilities] a node without analysis-common: the service refuses to start",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const port = freePort();
    const node = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith("/_nodes")) {
        return Response.json({
          nodes: { n1: { name: "minimal", modules: [{ name: "transport-netty4" }] } },
        });
      }
      return Response.json({ status: "green" });
    });
    try {
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN],
        env: {
          SERVICE_HTTP_PORT: String(freePort()),
          SERVICE_DATA_DIR: ":memory:",
          SERVICE_SEARCH_BACKEND: "opensearch",
          SERVICE_OPENSEARCH_URL: `http://127.0.0.1:${port}`,
        },
        stdout: "null",
        stderr: "piped",
        // A service that did start would serve on: cut it off.
        signal: AbortSignal.timeout(30_000),
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 2, stderr);
      assert.match(stderr, /Refusing to start: node minimal .* lacks the analysis-common module/);
    } finally {
      await node.shutdown();
    }
  },
});

Deno.test({
  name: "[faults/capabilities] the test node has what the mappings need",
  ignore: openSearchUrl() === undefined,
  fn: async () => {
    const engine = new OpenSearchEngine({
      ...OPENSEARCH_DEFAULTS,
      node: openSearchUrl()!,
      limits: LIMITS,
    });
    try {
      assert.deepEqual(await engine.missingCapabilities(), []);
    } finally {
      await engine.close();
    }
  },
});
