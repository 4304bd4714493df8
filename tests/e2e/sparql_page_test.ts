/**
 * The SPARQL query page in a real browser (Chromium through playwright-core): pick the
 * store, run a SELECT, read the table; run a broken query, read the error. Runs when
 * `CHROMIUM_PATH` names a Chromium binary (Debian: /usr/bin/chromium).
 */
import { strict as assert } from "node:assert";
import { chromium } from "playwright-core";
import {
  DEMO_COLLECTION,
  startTestService,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";

const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH");
const SCREENSHOTS = new URL("./screenshots/", import.meta.url);
const DCT = "http://purl.org/dc/terms/";

if (!CHROMIUM_PATH) {
  console.log(
    "[e2e] SPARQL page test skipped: set CHROMIUM_PATH to a Chromium binary " +
      "(apt-get install chromium; CHROMIUM_PATH=/usr/bin/chromium)",
  );
}

async function createDocument(service: TestService, uri: string, title: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    {
      method: "PUT",
      headers: { "Content-Type": "text/turtle" },
      body: `<${uri}> a <http://xmlns.com/foaf/0.1/Document> ; <${DCT}title> "${title}"@en .`,
    },
  );
  assert.equal(response.status, 201, await response.text());
}

Deno.test({
  name: "[e2e] the SPARQL page runs a query and shows the table, then an error",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService();
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1280, height: 900 },
    });
    const problems: string[] = [];
    try {
      const prefix = uniqueItemUri("page");
      const uris = [1, 2, 3].map((n) => `${prefix}/doc-${n}`);
      for (const [index, uri] of uris.entries()) {
        await createDocument(service, uri, `Document ${index + 1}`);
      }

      const page = context.pages()[0] ?? await context.newPage();
      // A blocked inline script or style (CSP) and any script error show up here.
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      const requested: string[] = [];
      page.on("request", (request) => requested.push(request.url()));

      await page.goto(`${service.url}/admin/sparqlui`);
      await page.locator('#endpoint option[value="store"]').waitFor({ state: "attached" });
      await page.selectOption("#endpoint", "store");
      const endpointInfo = await page.locator("#endpoint-info").innerText();
      assert.match(endpointInfo, /Embedded store/);
      assert.ok(endpointInfo.includes(`SPARQL Protocol URL ${service.url}/sparql`), endpointInfo);
      assert.match(await page.inputValue("#query"), /LIMIT 25/, "a sample query is preloaded");

      const query = page.getByRole("textbox", { name: "Query", exact: true });
      await query.fill(
        `SELECT ?doc ?title WHERE {\n  ?doc <${DCT}title> ?title\n` +
          `  FILTER(STRSTARTS(STR(?doc), "${prefix}/"))\n} ORDER BY ?doc`,
      );
      await query.press("Control+Enter");
      const rows = page.locator("#results table tbody tr");
      await rows.nth(2).waitFor();
      assert.equal(await rows.count(), 3);
      const headers = await page.locator("#results thead th").allInnerTexts();
      assert.deepEqual(headers, ["#", "?doc", "?title"]);
      const second = await rows.nth(1).locator("td").allInnerTexts();
      assert.equal(second[1], uris[1], "IRIs are shown in full");
      assert.match(second[2], /^Document 2\s*@en$/);
      assert.match(await page.locator("#results caption").innerText(), /3 rows/);
      assert.match(await page.locator("#status").innerText(), /^3 rows in \d+(\.\d+)? m?s\.$/);
      await Deno.mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({
        path: new URL("sparql_page.png", SCREENSHOTS).pathname,
        fullPage: true,
      });

      await query.fill(`ASK { <${uris[0]}> <${DCT}title> "Document 1"@en }`);
      await page.getByRole("button", { name: "Run query" }).click();
      await page.locator("#results .answer.yes").waitFor();

      await query.fill(`CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = <${uris[2]}>) }`);
      await page.getByRole("button", { name: "Run query" }).click();
      await page.locator("#results pre.graph").waitFor();
      assert.match(await page.locator("#results pre.graph").innerText(), /Document 3/);
      assert.match(await page.locator("#status").innerText(), /^2 triples in /);

      await query.fill("SELECT ?s\nWHERE {\n  ?s ?p ?o\n  FILTER(?s = )\n}");
      await page.getByRole("button", { name: "Run query" }).click();
      const error = page.locator("#results .error[role=alert]");
      await error.waitFor();
      const errorText = await error.innerText();
      assert.match(errorText, /Invalid SPARQL/);
      assert.match(errorText, /line 4, column \d+/);
      // The caret waits where the parser stopped.
      const caretLine = await query.evaluate((element) => {
        const area = element as unknown as { value: string; selectionStart: number };
        return area.value.slice(0, area.selectionStart).split("\n").length;
      });
      assert.equal(caretLine, 4);
      await page.screenshot({
        path: new URL("sparql_page_error.png", SCREENSHOTS).pathname,
        fullPage: true,
      });

      // Only the service itself was asked for anything.
      const foreign = requested.filter((url) =>
        !url.startsWith(service.url) && !url.startsWith("data:")
      );
      assert.deepEqual(foreign, []);
      // The failed query's 400 is the one console error a browser logs on its own.
      assert.deepEqual(problems.filter((text) => !/status of 400/.test(text)), []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
