/**
 * The start-up capability check (src/store_sparql/capabilities.ts): against a store
 * the service cannot write to, the service refuses to start, exit 2, with a message naming
 * the behaviour and the store's answer, on every configured SPARQL store. (Fuseki: the
 * update URL points at the read-only query endpoint; Virtuoso: the service runs as the
 * read-only account.)
 */
import { strict as assert } from "node:assert";
import { storeBackends } from "../support/service.ts";
import { freePort } from "../support/ports.ts";

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname;
/** How long the refused start may take: the check itself answers in seconds. */
const START_CHECK_LIMIT_MS = 120_000;

for (const backend of storeBackends({ allStores: true })) {
  if (backend.kind !== "sparql") continue;
  Deno.test({
    name: `[store capability/${backend.name}] a store without update rights: no start, exit 2`,
    ignore: backend.skip !== undefined,
    fn: async () => {
      const dataDir = await Deno.makeTempDir({ prefix: "rcs-capability-" });
      const readOnly: Record<string, string> = backend.name === "virtuoso"
        ? { SERVICE_SPARQL_USER: backend.env.SERVICE_SPARQL_READER_USER }
        : { SERVICE_SPARQL_UPDATE_URL: backend.env.SERVICE_SPARQL_QUERY_URL };
      const service = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN],
        env: {
          ...backend.env,
          ...readOnly,
          SERVICE_DATA_DIR: dataDir,
          SERVICE_HTTP_PORT: String(freePort()),
        },
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      // A store that does not answer at all makes the service wait for it: end the test,
      // not the whole run (a store that died mid-run once hung CI here for good).
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          service.kill("SIGKILL");
        } catch {
          // it exited just now: its status says how
        }
      }, START_CHECK_LIMIT_MS);
      try {
        const output = await service.output();
        const stderr = new TextDecoder().decode(output.stderr);
        assert.ok(
          !timedOut,
          `the service did not exit within ${START_CHECK_LIMIT_MS} ms (is the store up?):` +
            `\n${stderr.slice(-2000)}`,
        );
        assert.equal(output.code, 2, stderr);
        assert.match(stderr, /fails the start-up check "update": .*refused the request with HTTP/);
      } finally {
        clearTimeout(timer);
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      }
    },
  });
}
