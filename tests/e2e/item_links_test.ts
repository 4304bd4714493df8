/**
 * Workbench links go where the resource is (issue 43), in a real browser: on an item page of
 * collection A, a link to an item of collection B names B and opens B's item; an IRI no
 * collection holds links to itself; an item asked of the wrong collection, or of none, is
 * found where it is rather than answered with an empty page offering downloads. The page
 * asks where its IRIs are in one request. Runs when `CHROMIUM_PATH` names a Chromium binary.
 */
import { strict as assert } from "node:assert";
import type { Page } from "playwright-core";
import { startTestService, type TestService } from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";

const A = "https://data.example.org/collection/links-a";
const B = "https://data.example.org/collection/links-b";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
workspaces:
  - uri: https://data.example.org/workspace/links
    name: Links
    collections:
      - uri: ${A}
        name: Links A
        index: links-a
      - uri: ${B}
        name: Links B
        index: links-b
`;

async function put(service: TestService, collection: string, uri: string, turtle: string) {
  const response = await service.fetch(
    `/api/item?${new URLSearchParams({ collection, item: uri })}`,
    {
      method: "PUT",
      headers: { "Content-Type": "text/turtle" },
      body: turtle,
    },
  );
  assert.equal(response.status, 201, await response.text());
}

const itemPage = (service: TestService, item: string, collection?: string) =>
  `${service.url}/ui/item?${new URLSearchParams(collection ? { collection, item } : { item })}`;

/** The collection parameter of a link's href. */
async function collectionOfLink(page: Page, name: string): Promise<string | null> {
  const href = await page.getByRole("link", { name, exact: true }).getAttribute("href");
  return new URL(href ?? "", "http://x").searchParams.get("collection");
}

Deno.test({
  name: "[e2e] item links open the item in the collection that holds it",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const service = await startTestService({ yaml: YAML });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const base = `https://data.example.org/id/links-${crypto.randomUUID()}`;
    const [inA, inB, nowhere, shared] = [
      `${base}/in-a`,
      `${base}/in-b`,
      `http://example.org/${base.slice(-8)}`,
      `${base}/shared`,
    ];
    try {
      await put(
        service,
        A,
        inA,
        `<${inA}> <${RDFS}label> "Item in A" ;
        <${RDFS}seeAlso> <${inB}>, <${nowhere}>, <${shared}> .`,
      );
      await put(service, B, inB, `<${inB}> <${RDFS}label> "Item in B" .`);
      // An IRI both collections hold, each as an item of its own.
      await put(
        service,
        A,
        shared,
        `<${shared}> <${RDFS}label> "Shared" ; <${RDFS}comment> "A's" .`,
      );
      await put(
        service,
        B,
        shared,
        `<${shared}> <${RDFS}label> "Shared" ; <${RDFS}comment> "B's" .`,
      );
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);
      const lookups: string[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname === "/api/item/collections") {
          lookups.push(request.url());
        }
      });

      await t.step("on A's item page, the link to B's item names B; one lookup", async () => {
        await page.goto(itemPage(service, inA, A));
        await page.locator("section.subject").first().waitFor();
        assert.equal(await page.locator("h1").innerText(), "Item in A");
        assert.equal(await collectionOfLink(page, "Item in B"), B);
        assert.equal(lookups.length, 1, lookups.join("\n"));
      });

      await t.step("an IRI both collections hold links within the page's own", async () => {
        assert.equal(await collectionOfLink(page, "Shared"), A);
      });

      await t.step("an IRI no collection holds links to itself", async () => {
        const external = page.locator("a.external");
        assert.equal(await external.getAttribute("href"), nowhere);
      });

      await t.step("clicking the link opens B's item", async () => {
        await page.getByRole("link", { name: "Item in B", exact: true }).click();
        await page.waitForURL((url) => url.searchParams.get("collection") === B);
        await page.locator("section.subject h3", { hasText: inB }).waitFor();
        assert.equal(await page.locator("h1").innerText(), "Item in B");
        assert.ok(await page.locator("#downloads").isVisible(), "B's item offers downloads");
      });

      await t.step("asked of the wrong collection, the page says where the item is", async () => {
        await page.goto(itemPage(service, inB, A));
        const where = page.locator("#where");
        await where.waitFor();
        assert.match(await where.innerText(), /holds no item.*this collection holds it/);
        assert.equal(await collectionOfLink(page, `Links B (${B})`), B);
        assert.ok(await page.locator("#downloads").isHidden(), "no downloads of nothing");
        assert.ok(await page.locator("#indexed").isHidden(), "no empty index document");
      });

      await t.step("asked of no collection, the page opens the one that holds it", async () => {
        await page.goto(itemPage(service, inB));
        await page.waitForURL((url) => url.searchParams.get("collection") === B);
        await page.locator("section.subject h3", { hasText: inB }).waitFor();
      });

      await t.step("asked of no collection, an IRI two collections hold lists both", async () => {
        await page.goto(itemPage(service, shared));
        await page.locator("#where").waitFor();
        assert.match(await page.locator("#where").innerText(), /these collections hold it/);
        assert.equal(await collectionOfLink(page, `Links A (${A})`), A);
        assert.equal(await collectionOfLink(page, `Links B (${B})`), B);
        await page.getByRole("link", { name: `Links B (${B})`, exact: true }).click();
        await page.locator("td", { hasText: "B's" }).first().waitFor();
      });

      await t.step("an IRI nobody holds is said so, with the IRI to follow", async () => {
        await page.goto(itemPage(service, nowhere));
        await page.locator("#where").waitFor();
        assert.match(await page.locator("#where").innerText(), /no collection you may read/);
        assert.equal(await page.locator("#where a.external").getAttribute("href"), nowhere);
      });

      assert.deepEqual(foreign, []);
      // The wrong collection's 404 is the browser's own log line.
      assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
