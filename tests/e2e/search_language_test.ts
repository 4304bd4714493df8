/**
 * The search page's language choice (issue 43), in a real browser: the chosen language goes
 * to `GET /api/search` as `language` and stays in the page's URL, so a German inflection is
 * found by its stem in German literals only, and `sort=label` sorts by the labels of that
 * language. Runs when `CHROMIUM_PATH` names a Chromium binary.
 */
import { strict as assert } from "node:assert";
import type { Page } from "playwright-core";
import { DEMO_COLLECTION, startTestService, uniqueItemUri } from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";

const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const DCT = "http://purl.org/dc/terms/";

/** The hits' item links, in page order. */
async function hitLinks(page: Page): Promise<string[]> {
  return await page.locator("#hits .hit-head a").allInnerTexts();
}

Deno.test({
  name: "[e2e] the search page sends the chosen language and keeps it",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const service = await startTestService();
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const base = uniqueItemUri("language");
    const [town, fruit] = [`${base}/town`, `${base}/fruit`];
    try {
      const put = async (uri: string, turtle: string) => {
        const response = await service.fetch(
          `/api/item?${new URLSearchParams({ collection: DEMO_COLLECTION, item: uri })}`,
          { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
        );
        assert.equal(response.status, 201, await response.text());
      };
      await put(
        town,
        `<${town}> <${RDFS}label> "Zebra"@en, "Apfel"@de ;
          <${DCT}description> "Die Häuser der Stadt"@de .`,
      );
      await put(fruit, `<${fruit}> <${RDFS}label> "Banana"@en, "Zitrone"@de .`);
      // Indexing follows the write through the outbox.
      for (let tries = 0;; tries++) {
        const answer = await (await service.fetch(
          `/api/search?${new URLSearchParams({ collection: DEMO_COLLECTION, q: "zitrone" })}`,
        )).json();
        if (answer.total === 1) break;
        assert.ok(
          tries < 300,
          `the items never reached the search index: ${JSON.stringify(answer)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);

      await t.step("German finds an inflected German word by its stem", async () => {
        await page.goto(
          `${service.url}/ui/search?${new URLSearchParams({ collection: DEMO_COLLECTION })}`,
        );
        await page.locator("#collection option").first().waitFor({ state: "attached" });
        await page.getByLabel("Language", { exact: true }).selectOption({ label: "German (de)" });
        await page.getByLabel("Query", { exact: true }).fill("Haus");
        await page.getByRole("button", { name: "Search" }).click();
        await page.locator("#summary", { hasText: /^1 hit\(s\)/ }).waitFor();
        assert.match(page.url(), /language=de/);
        assert.equal(await page.locator("#hits mark").first().innerText(), "Häuser");
        // One list of fragments, under `text`.
        assert.deepEqual(await page.locator("#hits dt").allInnerTexts(), ["text"]);
      });

      await t.step(
        "the language is read back from the URL; English does not stem German",
        async () => {
          await page.reload();
          await page.locator("#summary", { hasText: /^1 hit\(s\)/ }).waitFor();
          assert.equal(await page.getByLabel("Language", { exact: true }).inputValue(), "de");
          await page.getByLabel("Language", { exact: true }).selectOption("en");
          await page.getByRole("button", { name: "Search" }).click();
          await page.locator("#summary", { hasText: /^No hit\.$/ }).waitFor();
          assert.match(page.url(), /language=en/);
          // Any language: every literal word for word, and every language's stems.
          await page.getByLabel("Language", { exact: true }).selectOption("");
          await page.getByRole("button", { name: "Search" }).click();
          await page.locator("#summary", { hasText: /^1 hit\(s\)/ }).waitFor();
          assert.doesNotMatch(page.url(), /language=/);
        },
      );

      await t.step("sort=label follows the chosen language", async () => {
        await page.getByLabel("Query", { exact: true }).fill("");
        await page.getByLabel(/^Sort/).fill("label:asc");
        await page.getByLabel("Language", { exact: true }).selectOption("en");
        await page.getByRole("button", { name: "Search" }).click();
        await page.locator("#summary", { hasText: /^2 hit\(s\)/ }).waitFor();
        assert.deepEqual(await hitLinks(page), ["Banana", "Zebra"]);
        await page.getByLabel("Language", { exact: true }).selectOption("de");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/language=de/);
        // The hits are named in the browser's language; their order is by the German labels.
        const iris = page.locator("#hits .hit-head small.iri");
        for (let tries = 0;; tries++) {
          const order = (await iris.allInnerTexts()).map((text) => text.trim());
          if (order.join(" ") === `${town} ${fruit}`) break;
          assert.ok(tries < 100, `hits in order ${order.join(" ")}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.deepEqual(await hitLinks(page), ["Zebra", "Banana"]);
      });
      assert.deepEqual(problems, []);
      assert.deepEqual(foreign, []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
