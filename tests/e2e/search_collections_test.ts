/**
 * The search page over several collections or a whole workspace (issue 43, item 3), in a real
 * browser: two of three collections chosen, the hits of both come back in one list, each
 * naming its collection and opening the item in it; a workspace chosen instead searches all
 * three; the choice is kept in the page's URL. Runs when `CHROMIUM_PATH` names a Chromium
 * binary.
 */
import { strict as assert } from "node:assert";
import { startTestService, type TestService } from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";

const WORKSPACE = "https://data.example.org/workspace/herons";
const A = "https://data.example.org/collection/herons-a";
const B = "https://data.example.org/collection/herons-b";
const C = "https://data.example.org/collection/herons-c";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
workspaces:
  - uri: ${WORKSPACE}
    name: Herons
    collections:
      - uri: ${A}
        name: Herons A
        index: herons-a
      - uri: ${B}
        name: Herons B
        index: herons-b
      - uri: ${C}
        name: Herons C
        index: herons-c
`;

const itemOf = (collection: string) => `${collection.replace("/collection/", "/id/")}/heron`;
const nameOf = (collection: string) => `Grey heron of ${collection.slice(-1).toUpperCase()}`;

async function put(service: TestService, collection: string): Promise<void> {
  const item = itemOf(collection);
  const response = await service.fetch(`/api/item?${new URLSearchParams({ collection, item })}`, {
    method: "PUT",
    headers: { "Content-Type": "text/turtle" },
    body: `<${item}> <${RDFS}label> "${nameOf(collection)}" .`,
  });
  assert.equal(response.status, 201, await response.text());
}

Deno.test({
  name: "[e2e] the search page searches several collections, or a workspace",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const service = await startTestService({ yaml: YAML });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    try {
      for (const collection of [A, B, C]) await put(service, collection);
      await service.services.deps.indexOutbox.drain(60_000);
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);
      const hitHeads = () => page.locator("#hits .hit-head");

      await t.step("two collections chosen: hits of both, each naming its own", async () => {
        await page.goto(`${service.url}/ui/search`);
        await page.locator("#collection option").first().waitFor({ state: "attached" });
        await page.locator("#collection").selectOption([A, B]);
        await page.getByLabel("Query").fill("heron");
        await page.getByRole("button", { name: "Search" }).click();
        await page.locator("#summary", { hasText: /^2 hit\(s\)/ }).waitFor();
        const heads = (await hitHeads().allInnerTexts()).sort();
        assert.equal(heads.length, 2);
        assert.match(heads[0], new RegExp(`^${nameOf(A)}.*in Herons A`, "s"));
        assert.match(heads[1], new RegExp(`^${nameOf(B)}.*in Herons B`, "s"));
        const url = new URL(page.url());
        assert.deepEqual(url.searchParams.getAll("collection"), [A, B]);
      });

      await t.step("a hit links to its item in its own collection", async () => {
        const link = page.getByRole("link", { name: nameOf(B), exact: true });
        const href = new URL(await link.getAttribute("href") ?? "", service.url);
        assert.equal(href.searchParams.get("collection"), B);
        assert.equal(href.searchParams.get("item"), itemOf(B));
        await link.click();
        await page.waitForURL((url) => url.pathname === "/ui/item");
        await page.locator("h1", { hasText: nameOf(B) }).waitFor();
      });

      await t.step("the page opened from its URL keeps the choice", async () => {
        await page.goBack();
        await page.locator("#summary", { hasText: /^2 hit\(s\)/ }).waitFor();
        const chosen = await page.evaluate<string[]>(
          `[...document.getElementById("collection").selectedOptions].map((o) => o.value)`,
        );
        assert.deepEqual(chosen, [A, B]);
      });

      await t.step("a whole workspace: the hits of every collection", async () => {
        await page.locator("#workspace").selectOption(WORKSPACE);
        assert.ok(await page.locator("#collection").isDisabled());
        await page.getByRole("button", { name: "Search" }).click();
        await page.locator("#summary", { hasText: /^3 hit\(s\)/ }).waitFor();
        const heads = (await hitHeads().allInnerTexts()).sort();
        assert.match(heads[2], /in Herons C/);
        const url = new URL(page.url());
        assert.equal(url.searchParams.get("workspace"), WORKSPACE);
        assert.deepEqual(url.searchParams.getAll("collection"), []);
      });

      assert.deepEqual(foreign, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
