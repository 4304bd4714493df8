/**
 * The item page's history (issue 41, deliver 4) in a real browser, on the embedded store,
 * with a reader's and an editor's token: the history loads only when opened; a reader sees
 * the versions but no restore; an editor's item written three times lists 3 versions newest
 * first, the change from v1 to v3 shows the removed and added triples (terms shortened,
 * blank nodes as the API labels them), a version is viewed read-only, v1 is restored and the
 * item shows it as version 4 "restore"; a restore after someone else wrote says so (412)
 * and shows the item as it is now; a deleted item's page offers its history, and for the
 * editor a restore that brings it back (not over a write made since the page read it); a
 * long history pages with "Older versions"; on the SPARQL store, which keeps no history, the
 * section shows the API's problem. The opened history fits 400 px. Runs when
 * `CHROMIUM_PATH` names a Chromium binary; screenshots land in tests/e2e/screenshots/.
 */
import { strict as assert } from "node:assert";
import type { Page } from "playwright-core";
import {
  DEMO_COLLECTION,
  itemQuery,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";

const SCREENSHOTS = new URL("./screenshots/", import.meta.url);

/** In the page: form controls of the page (not the token dialog's) without a label. */
const UNLABELLED_CONTROLS = `[...document.querySelectorAll("main input, main select")]
  .filter((control) => control.labels.length === 0)
  .map((control) => control.id || control.outerHTML.slice(0, 60))`;

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}

const READER = "history-reader-token-0123456789abcdef";
const EDITOR = "history-editor-token-0123456789abcdef";
const DCT = "http://purl.org/dc/terms/";
const FOAF = "http://xmlns.com/foaf/0.1/";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const TOPIC = "https://data.example.org/topic/";

/** The shipped customer.yml with a reader token `r` and an editor token `e`. */
function tokensYaml(): string {
  const shipped = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
  const yaml = shipped.replace(
    "    tokens: []",
    `    tokens:\n      - { name: r, token: "${READER}", role: reader }\n` +
      `      - { name: e, token: "${EDITOR}", role: editor }`,
  );
  assert.notEqual(yaml, shipped, "customer.yml no longer has the tokens line to replace");
  return yaml;
}

/** Turtle of one version of the item: its title, its topic and a blank-node creator. */
function version(uri: string, title: string, topic: string): string {
  return `<${uri}> <${DCT}title> "${title}"@en ; <${DCT}subject> <${TOPIC}${topic}> ;
    <${DCT}creator> [ <${FOAF}name> "Ann" ] .`;
}

/** An item write with the editor's token; asserts the status. */
async function write(
  service: TestService,
  method: "PUT" | "POST" | "DELETE",
  uri: string,
  status: number,
  turtle?: string,
): Promise<void> {
  const response = await service.fetch(`/api/item?${itemQuery(uri)}`, {
    method,
    headers: {
      Authorization: `Bearer ${EDITOR}`,
      ...(turtle ? { "Content-Type": "text/turtle" } : {}),
    },
    body: turtle,
  });
  assert.equal(response.status, status, await response.text());
}

/** `text` matched literally in a RegExp. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const itemPage = (service: TestService, uri: string) =>
  `${service.url}/ui/item?${new URLSearchParams({ collection: DEMO_COLLECTION, item: uri })}`;

/** Opens the item page and gives `token` when the page asks for one. */
async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByRole("dialog", { name: "Access token" }).waitFor();
  await page.getByLabel("Bearer token").fill(token);
  await page.keyboard.press("Enter");
}

/** The version rows shown: `number operation by` each, newest first. */
function versionRows(page: Page): Promise<string[]> {
  return page.locator("table.versions tbody tr").evaluateAll((rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll("td")].map((td) => td.textContent?.trim());
      return `${cells[2]} ${cells[5]} ${cells[4]}`;
    })
  );
}

/** Waits until the history lists `count` versions. */
async function waitForVersions(page: Page, count: number): Promise<void> {
  await page.locator(`table.versions tbody tr:nth-child(${count})`).waitFor();
  assert.equal(await page.locator("table.versions tbody tr").count(), count);
}

/** Opens the History section. */
async function openHistory(page: Page): Promise<void> {
  await page.getByText("Versions: compare, view, restore").click();
}

/** Accepts the next confirmation, returning its text. */
function acceptNextDialog(page: Page): Promise<string> {
  return new Promise((resolve) => {
    page.once("dialog", async (dialog) => {
      const message = dialog.message();
      await dialog.accept();
      resolve(message);
    });
  });
}

Deno.test({
  name: "[e2e] the item page shows the history, a diff, a version, and restores (editors)",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const service = await startTestService({ yaml: tokensYaml() });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const uri = uniqueItemUri("history");
    try {
      // Topic b has a label of its own: the change shows it as the graph does.
      await write(service, "PUT", `${TOPIC}b`, 201, `<${TOPIC}b> <${RDFS}label> "Topic B"@en .`);
      await write(service, "PUT", uri, 201, version(uri, "First title", "a"));
      await write(service, "POST", uri, 204, version(uri, "Second title", "a"));
      await write(service, "POST", uri, 204, version(uri, "Third title", "b"));
      // One tab each: the token is kept per tab.
      const reader = await context.newPage();
      const editor = await context.newPage();
      for (const page of [reader, editor]) watchProblems(page, problems);
      const historyAsked: string[] = [];
      reader.on("request", (request) => {
        if (new URL(request.url()).pathname === "/api/item/history") {
          historyAsked.push(request.url());
        }
      });

      await t.step("a reader: the history loads when opened, and offers no restore", async () => {
        await signIn(reader, itemPage(service, uri), READER);
        await reader.locator("section.subject").first().waitFor();
        assert.match(await reader.locator("#graph").innerText(), /Third title/);
        assert.deepEqual(historyAsked, [], "the item's first render does not read its history");
        await openHistory(reader);
        await waitForVersions(reader, 3);
        assert.equal(historyAsked.length, 1);
        assert.deepEqual(await versionRows(reader), [
          "3 update (current) token:e",
          "2 update token:e",
          "1 create token:e",
        ]);
        assert.equal(await reader.getByRole("button", { name: /^View version/ }).count(), 3);
        assert.equal(await reader.getByRole("button", { name: /Restore/ }).count(), 0);
      });

      await t.step("an editor sees 3 versions newest first, with restore buttons", async () => {
        await signIn(editor, itemPage(service, uri), EDITOR);
        await editor.locator("section.subject").first().waitFor();
        await openHistory(editor);
        await waitForVersions(editor, 3);
        assert.deepEqual(await versionRows(editor), [
          "3 update (current) token:e",
          "2 update token:e",
          "1 create token:e",
        ]);
        // Not the current version: restoring it would change nothing.
        const restores = editor.getByRole("button", { name: /^Restore version/ });
        assert.deepEqual(
          await restores.evaluateAll((buttons) =>
            buttons.map((button) => button.getAttribute("aria-label"))
          ),
          ["Restore version 2", "Restore version 1"],
        );
        // Short ETags, the whole hash in the title.
        const etag = editor.locator("table.versions tbody tr").first().locator("td").nth(6);
        assert.match(await etag.innerText(), /^[0-9a-f]{12}…$/);
        assert.match((await etag.getAttribute("title")) ?? "", /^[0-9a-f]{64}$/);
        // By default the previous and the newest version are compared.
        assert.ok(await editor.getByLabel("From version 2", { exact: true }).isChecked());
        assert.ok(await editor.getByLabel("To version 3", { exact: true }).isChecked());
      });

      await t.step("the change from v1 to v3: removed and added triples", async () => {
        await editor.getByLabel("From version 1", { exact: true }).check();
        await editor.getByRole("button", { name: "Compare the chosen versions" }).click();
        await editor.locator("#diff-title", { hasText: "from version 1 to version 3" }).waitFor();
        const removed = await editor.locator("table.triples.removed").innerText();
        const added = await editor.locator("table.triples.added").innerText();
        assert.match(removed, /dct:title\s+First title @en/);
        assert.match(removed, /dct:subject\s+https:\/\/data\.example\.org\/topic\/a/);
        assert.match(added, /dct:title\s+Third title @en/);
        assert.match(added, /dct:subject\s+Topic B\s+https:\/\/data\.example\.org\/topic\/b/);
        assert.doesNotMatch(removed, /Third title|topic\/b/);
        assert.doesNotMatch(added, /First title|topic\/a/);
        // The item's own IRI without its label: that is the newest title, here a change.
        assert.match(removed, new RegExp(`^${escaped(uri)}\\s+dct:title\\s+First title`, "m"));
        // Blank nodes have no identity across versions: their triples go and come, labelled.
        assert.match(removed, /_:\S+\s+foaf:name\s+Ann/);
        assert.match(added, /_:\S+\s+foaf:name\s+Ann/);
        // The full IRI stays in the title.
        assert.equal(
          await editor.locator("table.triples.added td span.iri", { hasText: "dct:title" })
            .getAttribute("title"),
          `${DCT}title`,
        );
      });

      await t.step("viewing v1 shows its content, read-only", async () => {
        await editor.getByRole("button", { name: "View version 1" }).click();
        const view = editor.locator("#version-view pre");
        await view.waitFor();
        assert.match(await view.innerText(), /First title/);
        assert.doesNotMatch(await view.innerText(), /Third title/);
        assert.equal(
          await editor.locator("#version-view textarea, #version-view input").count(),
          0,
        );
        // The item itself is still the newest version.
        assert.match(await editor.locator("#graph").innerText(), /Third title/);
      });

      await t.step("at 400 px the opened history fits and labels its controls", async () => {
        await editor.setViewportSize({ width: 400, height: 800 });
        const width = await editor.evaluate<number>("document.documentElement.scrollWidth");
        assert.ok(width <= 400, `the item page is ${width} px wide at 400 px`);
        assert.deepEqual(await editor.evaluate<string[]>(UNLABELLED_CONTROLS), []);
        await screenshot(editor, "workbench_item_history_400px");
        await editor.setViewportSize({ width: 1280, height: 900 });
        await screenshot(editor, "workbench_item_history");
      });

      await t.step("restoring v1 makes it the item's version 4, 'restore'", async () => {
        const v1Hash = await editor.locator('tr[data-version="1"] td').nth(6).getAttribute("title");
        const asked = acceptNextDialog(editor);
        await editor.getByRole("button", { name: "Restore version 1" }).click();
        assert.match(await asked, /Restore version 1\?/);
        await editor.locator("#history-status", { hasText: "Restored version 1 as version 4" })
          .waitFor();
        await waitForVersions(editor, 4);
        assert.deepEqual((await versionRows(editor)).slice(0, 2), [
          "4 restore (current) token:e",
          "3 update token:e",
        ]);
        assert.match(await editor.locator("#graph").innerText(), /First title/);
        assert.doesNotMatch(await editor.locator("#graph").innerText(), /Third title/);
        // The item's ETag is v1's again.
        assert.equal(await editor.locator("#etag").innerText(), `"${v1Hash}"`);
        const served = await service.fetch(`/api/item?${itemQuery(uri)}`, {
          headers: { Authorization: `Bearer ${READER}`, Accept: "application/n-triples" },
        });
        assert.match(await served.text(), /First title/);
      });

      await t.step(
        "a restore after someone else wrote says so and shows the item now",
        async () => {
          await write(service, "POST", uri, 204, version(uri, "Fifth title", "c"));
          const asked = acceptNextDialog(editor);
          await editor.getByRole("button", { name: "Restore version 2" }).click();
          await asked;
          const status = editor.locator("#history-status .error");
          await status.waitFor();
          assert.match(await status.innerText(), /Not restored: the item changed since/);
          assert.match(await status.innerText(), /412/);
          await waitForVersions(editor, 5);
          assert.deepEqual((await versionRows(editor))[0], "5 update (current) token:e");
          assert.match(await editor.locator("#graph").innerText(), /Fifth title/);
        },
      );

      await t.step("a deleted item: its history for a reader, no restore", async () => {
        await write(service, "DELETE", uri, 204);
        await reader.goto(itemPage(service, uri));
        await reader.locator("#deleted").waitFor();
        assert.match(await reader.locator("#deleted").innerText(), /was deleted/);
        assert.match(await reader.locator("#graph").innerText(), /version 6/);
        // Opened at once: the history is what a deleted item has.
        await waitForVersions(reader, 6);
        assert.equal((await versionRows(reader))[0], "6 delete token:e");
        assert.equal(await reader.getByRole("button", { name: /Restore/ }).count(), 0);
        assert.ok(await reader.locator("#downloads").isHidden());
      });

      await t.step("an undelete after someone else wrote says so", async () => {
        await editor.goto(itemPage(service, uri));
        await editor.locator("#deleted").waitFor();
        await waitForVersions(editor, 6);
        // Created again and deleted again behind the page's back: versions 7 and 8.
        await write(service, "PUT", uri, 201, version(uri, "Seventh title", "d"));
        await write(service, "DELETE", uri, 204);
        const asked = acceptNextDialog(editor);
        await editor.getByRole("button", { name: "Restore version 5" }).click();
        await asked;
        const status = editor.locator("#history-status .error");
        await status.waitFor();
        assert.match(await status.innerText(), /Not restored: the item changed since/);
        await waitForVersions(editor, 8);
        assert.equal((await versionRows(editor))[0], "8 delete token:e");
        // Nothing was written by the refused restore.
        const history = await service.fetch(`/api/item/history?${itemQuery(uri)}`, {
          headers: { Authorization: `Bearer ${READER}` },
        });
        assert.equal((await history.json()).versions.length, 8);
      });

      await t.step("a deleted item is restored from its page by an editor", async () => {
        await editor.goto(itemPage(service, uri));
        await editor.locator("#deleted").waitFor();
        await waitForVersions(editor, 8);
        // No view or restore of the delete itself; the newest graph may come back.
        assert.equal(await editor.getByRole("button", { name: "View version 6" }).count(), 0);
        const asked = acceptNextDialog(editor);
        await editor.getByRole("button", { name: "Restore version 5" }).click();
        assert.match(await asked, /deleted item comes back/);
        await editor.locator("#history-status", { hasText: "Restored version 5 as version 9" })
          .waitFor();
        await editor.locator("section.subject").first().waitFor();
        assert.match(await editor.locator("#graph").innerText(), /Fifth title/);
        assert.ok(await editor.locator("#downloads").isVisible(), "the item's downloads are back");
        assert.equal((await versionRows(editor))[0], "9 restore (current) token:e");
      });

      assert.deepEqual(foreign, [], "requests that left the machine");
      // The browser logs the first 401, the admin probe's 403, the deleted item's 410 and the
      // refused restore's 412.
      assert.deepEqual(problems.filter((p) => !/status of 4(01|03|10|12)/.test(p)), []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "[e2e] a long history pages with 'Older versions', keeping the chosen versions",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ yaml: tokensYaml() });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const uri = uniqueItemUri("long-history");
    try {
      await write(service, "PUT", uri, 201, version(uri, "Title 1", "t1"));
      for (let n = 2; n <= 23; n++) {
        await write(service, "POST", uri, 204, version(uri, `Title ${n}`, `t${n}`));
      }
      const page = await context.newPage();
      watchProblems(page, problems);
      await signIn(page, itemPage(service, uri), READER);
      await page.locator("section.subject").first().waitFor();
      await openHistory(page);
      await waitForVersions(page, 20);
      const older = page.getByRole("button", { name: "Older versions" });
      assert.ok(await older.isVisible());
      await page.getByLabel("From version 21", { exact: true }).check();
      await older.click();
      await waitForVersions(page, 23);
      assert.ok(await older.isHidden(), "no older page after the oldest");
      const numbers = (await versionRows(page)).map((row) => Number(row.split(" ")[0]));
      assert.deepEqual(numbers, Array.from({ length: 23 }, (_, i) => 23 - i));
      // The choice made on the first page holds; one from the older page joins it.
      assert.ok(await page.getByLabel("From version 21", { exact: true }).isChecked());
      await page.getByLabel("To version 2", { exact: true }).check();
      await page.getByRole("button", { name: "Compare the chosen versions" }).click();
      await page.locator("#diff-title", { hasText: "from version 21 to version 2" }).waitFor();
      assert.match(await page.locator("table.triples.removed").innerText(), /Title 21/);
      assert.match(await page.locator("table.triples.added").innerText(), /Title 2 @en/);
      assert.deepEqual(foreign, []);
      assert.deepEqual(problems.filter((p) => !/status of 40[13]/.test(p)), []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});

const SPARQL_STORE = storeBackends().find((backend) => backend.name === "sparql")!;

Deno.test({
  name: "[e2e] on the SPARQL store, the section shows the item's history and its change",
  ignore: !CHROMIUM_PATH || SPARQL_STORE.skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const service = await startTestService({ env: SPARQL_STORE.env });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const uri = uniqueItemUri("sparql-history");
    try {
      for (
        const [method, title, status] of [["PUT", "First title", 201], [
          "POST",
          "Second title",
          204,
        ]] as const
      ) {
        const written = await service.fetch(`/api/item?${itemQuery(uri)}`, {
          method,
          headers: { "Content-Type": "text/turtle" },
          body: version(uri, title, "a"),
        });
        assert.equal(written.status, status, await written.text());
      }
      const page = await context.newPage();
      watchProblems(page, problems);
      await page.goto(itemPage(service, uri));
      await page.locator("section.subject").first().waitFor();
      await openHistory(page);
      await waitForVersions(page, 2);
      assert.deepEqual(
        (await versionRows(page)).map((row) => row.split(" ")[1]),
        ["update", "create"],
      );
      await page.getByRole("button", { name: "Compare the chosen versions" }).click();
      await page.getByText("Second title").first().waitFor();
      assert.match(await page.locator("#graph").innerText(), /Second title/);
      assert.deepEqual(foreign, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
