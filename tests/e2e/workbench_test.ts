/**
 * The workbench in a real browser (Chromium through playwright-core), one browser and one
 * service for every page's main flow: items created through the API are found on the
 * landing page, browsed to with their labels and their type's label, searched (highlights
 * keep their spaces, the types facet by label, the clamp note, paging past the end), queried
 * in YASGUI (CSV downloaded; the service's error text, the row-cap banner, columns in query
 * order), indexed by a job watched to 100%, imported from the collection page and followed,
 * and used for SHACL generation; with the run-time catalog API, a collection is made, a
 * vocabulary imported by subject, found by label and downloaded with schema: prefixes; the
 * API reference renders; every page fits 400 px (IRI cells readable, no query text under
 * the SPARQL buttons) and labels its form controls; the Token button shows only with
 * tokens; with tokens, the pages load openly and ask for one; a 10,000-row SPARQL answer is
 * drawn a page at a time within a budget the page measures, and paged through. Every
 * request the pages make is checked: anything but the loopback service fails the test.
 * Runs when `CHROMIUM_PATH` names a Chromium binary (Debian: /usr/bin/chromium).
 * Screenshots land in tests/e2e/screenshots/.
 */
import { strict as assert } from "node:assert";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import {
  DEMO_COLLECTION,
  startTestService,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";
const SCREENSHOTS = new URL("./screenshots/", import.meta.url);
const DCT = "http://purl.org/dc/terms/";
const ROW_CAP = 50;
const FOAF_DOCUMENT = "http://xmlns.com/foaf/0.1/Document";
const TYPE_LABEL = "Document (FOAF class)";
const PAGES = [
  "/",
  "/ui/collection",
  "/ui/item",
  "/ui/search",
  "/ui/sparql",
  "/ui/jobs",
  "/ui/job",
  "/ui/tools",
  "/ui/api",
];

/** In the page: our form controls (not YASGUI's or Swagger UI's) that have no label. */
const UNLABELLED_CONTROLS = `
  [...document.querySelectorAll("main input, main select, main textarea, dialog input")]
    .filter((control) => !control.closest(".yasgui, .swagger-ui"))
    .filter((control) => control.labels.length === 0)
    .map((control) => control.id || control.outerHTML.slice(0, 60))`;

/**
 * In the page: which parts of the SPARQL page overlap (tab list, endpoint bar, the editor's
 * buttons, the editor's text), as "a / b" with their boxes.
 */
const OVERLAPS_ON_SPARQL_PAGE = `(() => {
  const box = (element) => element.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 &&
    a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const text = (rect) => [rect.left, rect.top, rect.right, rect.bottom].map(Math.round).join(",");
  const parts = [
    ".yasgui .tabsList",
    ".yasgui .tabContextButton",
    ".yasgui .autocompleteWrapper",
    ".yasqe .yasqe_buttons",
  ]
    .map((selector) => [selector, document.querySelector(selector)])
    .filter(([, element]) => element);
  const found = [];
  for (const [i, [a, first]] of parts.entries()) {
    for (const [b, second] of parts.slice(i + 1)) {
      if (meets(box(first), box(second))) {
        found.push(a + " / " + b + ": " + text(box(first)) + " " + text(box(second)));
      }
    }
  }
  const buttons = document.querySelector(".yasqe .yasqe_buttons");
  for (const line of document.querySelectorAll(".yasqe .CodeMirror-line")) {
    const range = document.createRange();
    range.selectNodeContents(line);
    for (const rect of range.getClientRects()) {
      if (rect.width > 0 && meets(rect, box(buttons))) {
        found.push("query text / buttons: " + text(rect) + " " + text(box(buttons)));
      }
    }
  }
  return found;
})()`;

if (!CHROMIUM_PATH) {
  console.log(
    "[e2e] workbench test skipped: set CHROMIUM_PATH to a Chromium binary " +
      "(apt-get install chromium; CHROMIUM_PATH=/usr/bin/chromium)",
  );
}

/** schema.org's N-Triples (a part of the dump as shipped, see its README). */
const SCHEMA_ORG_DUMP = new URL("../fixtures/schema-org/schema-org-part.nt", import.meta.url);

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}

async function createItem(service: TestService, uri: string, turtle: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}

/** The text of a download the click starts. */
async function downloadText(page: Page, click: () => Promise<void>): Promise<[string, string]> {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await download.path();
  return [download.suggestedFilename(), await Deno.readTextFile(path)];
}

Deno.test({
  name: "[e2e] the workbench: browse, search, query, index, tools, API, 400 px, tokens",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // A small row cap, so that a query can be cut by it.
    const service = await startTestService({ env: { SERVICE_QUERY_MAX_ROWS: String(ROW_CAP) } });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    const word = `zebra${crypto.randomUUID().slice(0, 8)}`;
    const prefix = uniqueItemUri("workbench");
    const uris = [1, 2, 3].map((n) => `${prefix}/doc-${n}`);
    try {
      for (const [index, uri] of uris.entries()) {
        await createItem(
          service,
          uri,
          `<${uri}> a <http://xmlns.com/foaf/0.1/Document> ; <${DCT}title> "Document ${
            index + 1
          } ${word} attending the event"@en ; <${DCT}creator> [ <http://xmlns.com/foaf/0.1/name> "Author ${
            index + 1
          }" ] .`,
        );
      }
      // The type's label lives in an item of its own, as an imported vocabulary's would.
      await createItem(
        service,
        FOAF_DOCUMENT,
        `<${FOAF_DOCUMENT}> <http://www.w3.org/2000/01/rdf-schema#label> "${TYPE_LABEL}"@en .`,
      );
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);

      await t.step("the landing page lists the collection with its counts", async () => {
        await page.goto(`${service.url}/`);
        const row = page.locator("table.collections tbody tr", { hasText: "Documents" });
        await row.waitFor();
        const cells = await row.locator("td").allInnerTexts();
        assert.equal(cells[0], DEMO_COLLECTION);
        assert.ok(Number(cells[1]) >= 3, `items: ${cells[1]}`);
        await page.locator("#readiness dd.ok").first().waitFor();
        assert.match(await page.locator("#readiness").innerText(), /Outbox backlog/);
        assert.ok(await page.locator('a[href="/metrics"]').isVisible(), "admin links shown");
        assert.ok(await page.locator("#token-button").isHidden(), "no tokens, no Token button");
        await screenshot(page, "workbench_home");
      });

      await t.step("the collection page lists and filters the items", async () => {
        await page.getByRole("link", { name: "Documents", exact: true }).click();
        await page.waitForURL(/\/ui\/collection\?/);
        await page.getByLabel("Filter (full text)").fill(word);
        await page.getByRole("button", { name: "Apply" }).click();
        await page.waitForURL(new RegExp(`q=${word}`));
        const links = page.locator("#items tbody tr td:first-child a");
        await links.nth(2).waitFor();
        assert.deepEqual((await links.allInnerTexts()).sort(), uris);
        assert.match(await page.locator("#summary").innerText(), /Items 1–3 of 3/);
        // Labels beside IRIs: the item's title, its type's label with the prefixed name.
        const first = page.locator("#items tbody tr", { hasText: uris[0] });
        const cells = await first.locator("td").allInnerTexts();
        assert.equal(cells[1], `Document 1 ${word} attending the event`);
        assert.equal(cells[2], `${TYPE_LABEL} foaf:Document`);
        await screenshot(page, "workbench_collection");
        await page.getByRole("link", { name: uris[0], exact: true }).click();
        await page.waitForURL(/\/ui\/item\?/);
      });

      await t.step("the item page shows the graph, ETag, downloads and document", async () => {
        const subject = page.locator("section.subject").first();
        await subject.waitFor();
        assert.equal(await subject.locator("h3").innerText(), uris[0]);
        const title = `Document 1 ${word} attending the event`;
        assert.equal(await page.locator("h1").innerText(), title);
        assert.equal(await subject.locator("p.subject-label").innerText(), title);
        assert.match(
          await subject.locator("span.labelled", { hasText: TYPE_LABEL }).innerText(),
          /^Document \(FOAF class\) foaf:Document$/,
        );
        const graph = await page.locator("#graph").innerText();
        assert.match(graph, new RegExp(`Document 1 ${word}`));
        assert.match(graph, /dct:title/);
        // The creator, a blank node used once, is nested in the item's table.
        assert.equal(await subject.locator("table.properties table.properties").count(), 1);
        assert.match(
          await subject.locator("table.properties table.properties").innerText(),
          /Author 1/,
        );
        const etag = (await service.fetch(
          `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${
            encodeURIComponent(uris[0])
          }`,
        )).headers.get("etag");
        assert.equal(await page.locator("#etag").innerText(), etag);
        assert.equal(await page.locator("#downloads button").count(), 5);
        const [name, turtle] = await downloadText(
          page,
          () => page.getByRole("button", { name: "Turtle (.ttl)" }).click(),
        );
        assert.match(name, /\.ttl$/);
        assert.match(turtle, new RegExp(`Document 1 ${word}`));
        await page.locator("#indexed pre").waitFor();
        assert.match(await page.locator("#indexed pre").innerText(), new RegExp(uris[0]));
        await screenshot(page, "workbench_item");
      });

      await t.step("search shows hits with the matched words, and the clamp note", async () => {
        const query = new URLSearchParams({ collection: DEMO_COLLECTION });
        await page.goto(`${service.url}/ui/search?${query}`);
        await page.locator("#collection option").first().waitFor({ state: "attached" });
        // By keyboard: the query box, then Enter submits.
        await page.getByLabel("Query").focus();
        await page.keyboard.type(word);
        await page.keyboard.press("Enter");
        await page.locator("#summary", { hasText: /^3 hit\(s\)/ }).waitFor();
        assert.equal(await page.locator("#hits li").count(), 3);
        assert.ok(await page.locator("#hits mark").count() >= 3, "the query word is marked");
        // The space after a marked word stays (it used to be dropped by the HTML parser).
        assert.match(
          await page.locator("#hits dd").first().innerText(),
          new RegExp(`${word} attending`),
        );
        // The marks are the service's highlights (`highlight=true`), per field.
        assert.ok(await page.locator("#hits dt", { hasText: /^text$/ }).count() >= 3);
        assert.ok(await page.locator("#clamped").isHidden());
        // The types of all hits are counted; a count narrows the search to that type.
        const facet = page.locator("#type-facet li").first();
        await facet.waitFor();
        assert.match(await facet.innerText(), /\(3\)$/);
        // The type by its label, the prefixed name beside it; each hit by its title.
        assert.equal(await facet.innerText(), `${TYPE_LABEL} foaf:Document (3)`);
        const titles = await page.locator("#hits .hit-head a").allInnerTexts();
        assert.deepEqual(
          titles.sort(),
          [1, 2, 3].map((n) => `Document ${n} ${word} attending the event`),
        );
        await facet.getByRole("link").click();
        await page.locator("#summary", { hasText: /^3 hit\(s\)/ }).waitFor();
        assert.match(decodeURIComponent(page.url()), /filter=types:/);
        await page.getByLabel("Hits a page").fill("20000");
        await page.getByRole("button", { name: "Search" }).click();
        await page.locator("#clamped").waitFor({ state: "visible" });
        assert.match(await page.locator("#clamped").innerText(), /clamped/);
        assert.match(page.url(), /size=20000/);
        await screenshot(page, "workbench_search");
      });

      await t.step("paging past the last hit says so and offers the last page", async () => {
        const query = new URLSearchParams({ collection: DEMO_COLLECTION, q: word, from: "20" });
        await page.goto(`${service.url}/ui/search?${query}`);
        await page.locator("#summary", { hasText: /^3 hit\(s\); none from 21 on/ }).waitFor();
        assert.equal(await page.locator("#hits li").count(), 0);
        await page.getByRole("link", { name: "Last page" }).click();
        await page.locator("#summary", { hasText: /^3 hit\(s\); showing 1–3\.$/ }).waitFor();
        await page.goto(
          `${service.url}/ui/collection?${new URLSearchParams({
            collection: DEMO_COLLECTION,
            from: "400",
          })}`,
        );
        await page.locator("#summary", { hasText: /none from 401 on/ }).waitFor();
        assert.ok(await page.getByRole("link", { name: "Last page" }).isVisible());
        // The type box takes a prefixed name.
        await page.getByLabel(/^Type/).fill("foaf:Document");
        await page.getByRole("button", { name: "Apply" }).click();
        await page.locator("#summary", { hasText: /^Items 1–3 of 3\.$/ }).waitFor();
      });

      await t.step("by keyboard alone: skip link, search, open a hit", async () => {
        const activeId = () => page.evaluate<string>("document.activeElement.id");
        const activeHref = () => page.evaluate<string>("document.activeElement.href ?? ''");
        await page.goto(
          `${service.url}/ui/search?${new URLSearchParams({ collection: DEMO_COLLECTION })}`,
        );
        await page.locator("#summary", { hasText: /hit/ }).waitFor();
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate<string>("document.activeElement.className"), "skip-link");
        await page.keyboard.press("Enter");
        assert.equal(await activeId(), "main");
        for (let tabs = 0; tabs < 10 && await activeId() !== "q"; tabs++) {
          await page.keyboard.press("Tab");
        }
        assert.equal(await activeId(), "q");
        await page.keyboard.type(word);
        await page.keyboard.press("Enter");
        await page.locator("#summary", { hasText: /^3 hit\(s\)/ }).waitFor();
        for (let tabs = 0; tabs < 20 && !(await activeHref()).includes("/ui/item?"); tabs++) {
          await page.keyboard.press("Tab");
        }
        assert.ok((await activeHref()).includes("/ui/item?"), "a hit's link takes the focus");
        await page.keyboard.press("Enter");
        await page.waitForURL(/\/ui\/item\?/);
        await page.locator("section.subject").first().waitFor();
      });

      await t.step("YASGUI runs a query, shortens prefixes and downloads CSV", async () => {
        await page.goto(`${service.url}/ui/sparql`);
        await page.locator(".yasqe .CodeMirror").waitFor();
        const query = `PREFIX dct: <${DCT}>\nSELECT ?doc ?p ?title WHERE {\n` +
          `  ?doc ?p ?title FILTER(?p = dct:title && STRSTARTS(STR(?doc), "${prefix}/"))\n` +
          `} ORDER BY ?doc`;
        // CodeMirror's own API: typing would trigger completion and bracket closing.
        await page.evaluate(
          `document.querySelector(".yasqe .CodeMirror").CodeMirror.setValue(${
            JSON.stringify(query)
          })`,
        );
        await page.locator(".yasqe_queryButton").click();
        const rows = page.locator(".yasr tbody tr");
        await rows.nth(2).waitFor();
        assert.equal(await rows.count(), 3);
        assert.match(await rows.first().innerText(), /dct:title/);
        const [name, csv] = await downloadText(
          page,
          () => page.getByRole("button", { name: "CSV", exact: true }).click(),
        );
        assert.equal(name, "results.csv");
        const lines = csv.trim().split(/\r?\n/);
        assert.equal(lines[0], "doc,p,title");
        assert.equal(lines.length, 4);
        assert.ok(lines[1].startsWith(`${uris[0]},${DCT}title,`), lines[1]);
        assert.match(await page.locator("#history").innerText(), /SELECT \?doc/);
        // By keyboard: Ctrl+Enter runs the query from the editor, Esc then Tab leaves it.
        await page.locator(".yasqe .CodeMirror textarea").focus();
        await page.keyboard.press("Control+Enter");
        await page.locator(".yasr tbody tr").nth(2).waitFor();
        await page.keyboard.press("Escape");
        await page.keyboard.press("Tab");
        assert.equal(
          // The next stop is the editor's share button, outside the text.
          await page.evaluate<string>("document.activeElement.tagName"),
          "BUTTON",
          "Tab after Esc leaves the editor",
        );
        await screenshot(page, "workbench_sparql");
        await page.goto(`${service.url}/admin/sparqlui`);
        assert.equal(new URL(page.url()).pathname, "/ui/sparql");
      });

      await t.step("SPARQL: the service's error, the row cap, columns in query order", async () => {
        await page.goto(`${service.url}/ui/sparql`);
        await page.locator(".yasqe .CodeMirror").waitFor();
        const run = async (query: string) => {
          await page.evaluate(
            `document.querySelector(".yasqe .CodeMirror").CodeMirror.setValue(${
              JSON.stringify(query)
            })`,
          );
          await page.locator(".yasqe_queryButton").click();
        };
        const problem = page.locator("#query-problem");
        await run("SELECT ?s WHERE { ?s ?p }");
        await problem.waitFor({ state: "visible" });
        assert.match(await problem.innerText(), /400 · Invalid SPARQL · .*line 1/);
        await screenshot(page, "workbench_sparql_error");
        await run("SELECT * WHERE { ?s nope:thing ?o }");
        await problem.filter({ hasText: /nope/ }).waitFor();
        await run("INSERT DATA { <urn:a> <urn:b> <urn:c> }");
        await problem.filter({ hasText: /Updates are not allowed/ }).waitFor();
        // One row more than the cap: the page says the answer was cut.
        const values = Array.from({ length: ROW_CAP + 10 }, (_, n) => n).join(" ");
        await run(`SELECT ?n WHERE { VALUES ?n { ${values} } }`);
        const truncated = page.locator("#query-truncated");
        await truncated.waitFor({ state: "visible" });
        assert.ok(await problem.isHidden(), "a success clears the error");
        assert.match(await truncated.innerText(), new RegExp(`first ${ROW_CAP} result`));
        await page.locator(".yasr tbody tr").nth(ROW_CAP - 1).waitFor();
        assert.equal(await page.locator(".yasr tbody tr").count(), ROW_CAP);
        await screenshot(page, "workbench_sparql_truncated");
        // SELECT *: the columns in the order the query names the variables.
        await run(
          `SELECT * WHERE { ?zed <${DCT}title> ?apple BIND(STR(?apple) AS ?mid) ` +
            `FILTER(?zed = <${uris[0]}>) }`,
        );
        // A whole answer has no banner.
        await truncated.waitFor({ state: "hidden" });
        await page.locator(".yasr tbody tr").first().waitFor();
        const headings = await page.locator(".yasr thead th").allInnerTexts();
        assert.deepEqual(
          headings.map((text) => text.trim()).filter((text) => text !== ""),
          ["zed", "apple", "mid"],
        );
      });

      await t.step("a collection job started from the page reaches 100%", async () => {
        await page.goto(`${service.url}/ui/jobs`);
        await page.locator("#collection option").first().waitFor({ state: "attached" });
        await page.getByLabel("Collection", { exact: true }).selectOption(DEMO_COLLECTION);
        await page.getByRole("button", { name: "Index the collection" }).click();
        await page.waitForURL(/\/ui\/job\?id=/);
        await page.locator("#job-state.succeeded").waitFor({ timeout: 30_000 });
        assert.equal(await page.locator("#job-progress").getAttribute("value"), "100");
        assert.match(await page.locator("#job-percent").innerText(), /^100% · (\d+) of \1/);
        assert.match(await page.locator("#job-errors").innerText(), /None/);
        await screenshot(page, "workbench_job");
        await page.getByRole("link", { name: "Jobs", exact: true }).click();
        await page.locator("#jobs tbody tr").first().waitFor();
        assert.match(await page.locator("#jobs tbody tr").first().innerText(), /succeeded/);
      });

      await t.step("an import uploaded on the collection page is followed to its end", async () => {
        const imported = `${prefix}/imported-1`;
        await page.goto(
          `${service.url}/ui/collection?${new URLSearchParams({ collection: DEMO_COLLECTION })}`,
        );
        await page.getByLabel(/RDF file/).setInputFiles({
          name: "items.trig",
          mimeType: "application/trig",
          buffer: Buffer.from(`<${imported}> { <${imported}> <${DCT}title> "Imported" . }`),
        });
        await page.getByRole("button", { name: "Import" }).click();
        await page.waitForURL(/\/ui\/job\?kind=import&id=/);
        await page.locator("#job-state.succeeded").waitFor({ timeout: 30_000 });
        assert.equal(await page.locator('[data-count="written"]').innerText(), "1");
        assert.match(await page.locator("h1").innerText(), /^Import job /);
        await screenshot(page, "workbench_import_job");
        await page.getByRole("link", { name: "Jobs", exact: true }).click();
        await page.locator("#import-jobs tbody tr").first().waitFor();
        const row = await page.locator("#import-jobs tbody tr").first().innerText();
        assert.match(row, /succeeded/);
        assert.match(row, new RegExp(DEMO_COLLECTION));
        // A file without graphs is imported by subject (checked for the user).
        await page.goto(
          `${service.url}/ui/collection?${new URLSearchParams({ collection: DEMO_COLLECTION })}`,
        );
        await page.getByLabel(/RDF file/).setInputFiles({
          name: "dump.nt",
          mimeType: "application/n-triples",
          buffer: Buffer.from(`<${prefix}/by-subject> <${DCT}title> "By subject" .\n`),
        });
        assert.ok(await page.getByLabel(/Items by subject/).isChecked());
      });

      await t.step(
        "a new user: a collection made on its page, schema.org imported by subject, found by label",
        async () => {
          const uri = `https://data.example.org/collection/e2e-${crypto.randomUUID().slice(0, 8)}`;
          await page.goto(`${service.url}/ui/collection`);
          await page.getByLabel("Collection URI", { exact: true }).fill(uri);
          await page.getByLabel("Name", { exact: true }).fill("Made in the browser");
          await page.getByRole("button", { name: "Create the collection" }).click();
          await page.waitForURL(new RegExp(`collection=${encodeURIComponent(uri)}`));
          await page.locator("h1", { hasText: "Made in the browser" }).waitFor();
          // A real vocabulary as shipped: one graph, every subject an item of its own.
          const dump = await Deno.readFile(SCHEMA_ORG_DUMP);
          const subjects = new Set(
            new TextDecoder().decode(dump).split("\n").map((line) => line.split(" ")[0])
              .filter((subject) => subject.startsWith("<")),
          );
          await page.getByLabel(/RDF file/).setInputFiles({
            name: "schema-org.nt",
            mimeType: "application/n-triples",
            buffer: Buffer.from(dump),
          });
          assert.ok(await page.getByLabel(/Items by subject/).isChecked());
          await page.getByRole("button", { name: "Import" }).click();
          await page.locator("#job-state.succeeded").waitFor({ timeout: 60_000 });
          assert.equal(
            await page.locator('[data-count="written"]').innerText(),
            String(subjects.size),
          );
          // The import is done when its items are stored; they reach the index through the outbox.
          const indexed = `/api/search?${new URLSearchParams({
            collection: uri,
            q: "Person",
            filter: "uri:schema:Person",
          })}`;
          for (let tries = 0; (await (await service.fetch(indexed)).json()).total === 0; tries++) {
            assert.ok(tries < 100, "schema:Person never reached the search index");
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          // Found by its label, shown by its label; downloaded as Turtle with schema: prefixes.
          await page.goto(
            `${service.url}/ui/search?${new URLSearchParams({ collection: uri, q: "Person" })}`,
          );
          await page.locator("#summary", { hasText: /hit\(s\)/ }).waitFor({ timeout: 10_000 });
          await page.locator("#hits .hit-head a", { hasText: /^Person$/ }).click();
          await page.waitForURL(/\/ui\/item\?/);
          await page.locator("h1", { hasText: /^Person$/ }).waitFor();
          const [, turtle] = await downloadText(
            page,
            () => page.getByRole("button", { name: "Turtle (.ttl)" }).click(),
          );
          assert.match(turtle, /@prefix schema: <http:\/\/schema\.org\/>/);
          assert.match(turtle, /^schema:Person /m);
          assert.match(turtle, /^\s+rdfs:label "Person"/m);
        },
      );

      await t.step("SHACL shapes are generated, previewed and downloaded", async () => {
        await page.goto(`${service.url}/ui/tools`);
        await page.getByLabel(/RDF data file/).setInputFiles({
          name: "data.ttl",
          mimeType: "text/turtle",
          buffer: Buffer.from(
            `<${uris[0]}> a <http://xmlns.com/foaf/0.1/Document> ; <${DCT}title> "T" .`,
          ),
        });
        await page.getByRole("button", { name: "Generate" }).click();
        const preview = page.locator("#shacl-preview");
        await preview.waitFor();
        assert.match(await preview.innerText(), /sh:NodeShape|NodeShape/);
        assert.ok(
          await preview.locator("span.tt-keyword, span.tt-name").count() > 0,
          "highlighted",
        );
        const [name, shapes] = await downloadText(
          page,
          () => page.locator("#shacl-download").click(),
        );
        assert.equal(name, "shapes.ttl");
        assert.match(shapes, /NodeShape/);
        await page.getByRole("button", { name: "Show the settings" }).click();
        await page.locator("#settings").waitFor();
        assert.match(await page.locator("#settings").innerText(), /workspaces:/);
        await screenshot(page, "workbench_tools");
      });

      await t.step("the API reference renders /openapi.json", async () => {
        await page.goto(`${service.url}/ui/api`);
        await page.locator(".swagger-ui .opblock").nth(10).waitFor();
        assert.match(await page.locator(".swagger-ui").innerText(), /\/api\/item/);
        await screenshot(page, "workbench_api");
      });

      await t.step("every page fits 400 px and labels its form controls", async () => {
        await page.setViewportSize({ width: 400, height: 800 });
        const query = new URLSearchParams({ collection: DEMO_COLLECTION, item: uris[1] });
        for (const path of PAGES) {
          await page.goto(`${service.url}${path}?${query}`);
          // The collection page keeps its recent changes' stream open: the network is never
          // idle there, and the stream going live is its last step.
          if (path === "/ui/collection") {
            await page.locator("#changes-state[data-state=live]").waitFor();
          } else await page.waitForLoadState("networkidle");
          const width = await page.evaluate<number>("document.documentElement.scrollWidth");
          assert.ok(width <= 400, `${path} is ${width} px wide at 400 px`);
          const unlabelled = await page.evaluate<string[]>(UNLABELLED_CONTROLS);
          assert.deepEqual(unlabelled, [], `${path}: controls without a label`);
          const name = path === "/" ? "home" : path.slice("/ui/".length);
          await screenshot(page, `workbench_${name}_400px`);
        }
        // IRIs in tables keep a readable width at 400 px (not one character a line).
        await page.goto(`${service.url}/ui/collection?${query}`);
        await page.locator("#items td.uri").first().waitFor();
        const widths = await page.locator("#items td.uri").evaluateAll((cells) =>
          cells.map((cell) => cell.getBoundingClientRect().width)
        );
        assert.ok(widths.every((width) => width >= 200), `IRI cells: ${widths}`);
        // The SPARQL page at 400 px: the tabs, the endpoint bar and the editor's buttons
        // overlap nothing, and no query text runs under the buttons.
        await page.goto(`${service.url}/ui/sparql`);
        await page.locator(".yasqe .CodeMirror").waitFor();
        await page.evaluate(
          `document.querySelector(".yasqe .CodeMirror").CodeMirror.setValue(${
            JSON.stringify(
              `SELECT * WHERE { ?subject ?predicate ?object } ${"LIMIT 10 ".repeat(12)}`,
            )
          })`,
        );
        const overlaps = await page.evaluate<string[]>(OVERLAPS_ON_SPARQL_PAGE);
        assert.deepEqual(overlaps, [], "the SPARQL page's parts overlap at 400 px");
        await screenshot(page, "workbench_sparql_400px");
        await page.goto(`${service.url}/ui/item?${query}`);
        await page.locator("section.subject").first().waitFor();
        await screenshot(page, "workbench_item_400px");
      });

      assert.deepEqual(foreign, [], "requests that left the machine");
      // The failing queries' 400s are the browser's own log lines.
      assert.deepEqual(
        problems.filter((p) => !/\/ui\/sparql: .*status of 400/.test(p)),
        [],
        "script errors or blocked resources",
      );
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "[e2e] with tokens, the pages load without one, ask for it and hide admin parts",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const shipped = Deno.readTextFileSync(new URL("../../customer.yml", import.meta.url));
    const token = "workbench-reader-token-0123456789";
    // A second collection that grants the reader nothing: the pages never show it.
    const hidden = "      - uri: https://data.example.org/collection/hidden\n" +
      "        name: Hidden from readers\n        index: hidden\n" +
      "        access: { readers: [], editors: [] }\n";
    const service = await startTestService({
      yaml: shipped.replace(
        "    tokens: []",
        `    tokens:\n      - { name: r, token: "${token}", role: reader }`,
      ).replace("    collections:\n", `    collections:\n${hidden}`),
    });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    try {
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);
      const authorised: string[] = [];
      page.on("request", (request) => {
        if (request.headers()["authorization"] === `Bearer ${token}`) {
          authorised.push(request.url());
        }
      });
      await page.goto(`${service.url}/`);
      const dialog = page.getByRole("dialog", { name: "Access token" });
      await dialog.waitFor();
      await page.getByLabel("Bearer token").fill(token);
      assert.ok(await page.locator("#token-button").isVisible(), "tokens: the Token button");
      await page.keyboard.press("Enter");
      await page.locator("table.collections tbody tr").first().waitFor();
      assert.ok(authorised.some((url) => url.endsWith("/api/workspaces")));
      const listed = await page.locator("table.collections").innerText();
      assert.match(listed, /Documents/);
      assert.doesNotMatch(listed, /Hidden from readers/, "a collection the reader may not read");
      // A reader: no indexing, tools or metrics links.
      assert.ok(await page.getByRole("link", { name: "Jobs", exact: true }).isHidden());
      assert.ok(await page.locator('a[href="/metrics"]').isHidden());
      assert.equal(
        await page.evaluate(() => sessionStorage.getItem("rdf-content-service.token")),
        token,
      );
      assert.ok(!page.url().includes(token), "the token is never in a URL");
      await screenshot(page, "workbench_home_reader");
      // The token carries over to the next page of the tab: no second prompt.
      await page.getByRole("navigation").getByRole("link", { name: "Search" }).click();
      await page.locator("#collection option").first().waitFor({ state: "attached" });
      assert.ok(await dialog.isHidden());
      // YASGUI sends the token with its queries; a reader sees the store endpoint only.
      await page.goto(`${service.url}/ui/sparql`);
      await page.locator(".yasqe .CodeMirror").waitFor();
      assert.match(await page.locator("#endpoints-info").innerText(), /\/sparql \(Store\)\.$/);
      await page.evaluate(
        `document.querySelector(".yasqe .CodeMirror").CodeMirror.setValue("SELECT (1 AS ?one) {}")`,
      );
      await page.locator(".yasqe_queryButton").click();
      await page.locator(".yasr tbody tr").first().waitFor();
      assert.ok(authorised.some((url) => url.endsWith("/sparql")), "the query carried the token");
      // Swagger UI reads /openapi.json with it.
      await page.goto(`${service.url}/ui/api`);
      await page.locator(".swagger-ui .opblock").first().waitFor();
      assert.deepEqual(foreign, []);
      // The admin probe's 403 and the first 401 are the browser's own log lines.
      assert.deepEqual(problems.filter((p) => !/status of 40[13]/.test(p)), []);
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});

/** Rows of the large answer: a 100 × 100 cross join, numbered 0…9,999 in order. */
const LARGE_ANSWER_QUERY = `SELECT ?n ?thing ?label WHERE {
  VALUES ?tens { ${Array.from({ length: 100 }, (_, n) => n).join(" ")} }
  VALUES ?units { ${Array.from({ length: 100 }, (_, n) => n).join(" ")} }
  BIND(?tens * 100 + ?units AS ?n)
  BIND(IRI(CONCAT("http://example.org/thing/", STR(?n))) AS ?thing)
  BIND(CONCAT("Thing ", STR(?n)) AS ?label)
} ORDER BY ?n`;
const LARGE_ANSWER_ROWS = 10_000;
/** The total as the counter writes it. */
const LARGE_ANSWER_TOTAL = LARGE_ANSWER_ROWS.toLocaleString("en-US");
const PAGE_ROWS = 100;
/**
 * The most the tab may be busy at once drawing the answer. It froze for ~14 s here (30 s
 * in issue 43) and now draws in under 1 s on an idle machine; the room above that is for
 * a machine busy with other test runs (2.8 s was seen at a load of 13 on 2 cores).
 */
const DRAW_BUDGET_MS = 5_000;

/**
 * In the page, before the query runs: the longest task the main thread runs from now on,
 * and when the table's first row appears.
 */
const WATCH_THE_DRAW = `(() => {
  window.drawWatch = { longestTask: 0, rowsAt: undefined };
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) {
      drawWatch.longestTask = Math.max(drawWatch.longestTask, task.duration);
    }
  }).observe({ type: "longtask" });
  const results = document.querySelector(".yasr");
  new MutationObserver((_, observer) => {
    if (results.querySelector("tbody tr")) {
      drawWatch.rowsAt = performance.now();
      observer.disconnect();
    }
  }).observe(results, { childList: true, subtree: true });
})()`;

/** In the page: ms from the SPARQL answer's last byte to the first row drawn. */
const DRAW_TIME = `(() => {
  const answers = performance.getEntriesByType("resource")
    .filter((entry) => new URL(entry.name).pathname === "/sparql");
  return drawWatch.rowsAt - answers.at(-1).responseEnd;
})()`;

Deno.test({
  name: "[e2e] the SPARQL page shows a 10,000-row answer a page at a time, without freezing",
  ignore: !CHROMIUM_PATH,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    // Above the answer, so that no banner or cut changes what the table shows.
    const service = await startTestService({ env: { SERVICE_QUERY_MAX_ROWS: "20000" } });
    const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
    const foreign: string[] = [];
    const problems: string[] = [];
    const context = await launchLoopbackBrowser(userDataDir, foreign);
    try {
      const page = context.pages()[0] ?? await context.newPage();
      watchProblems(page, problems);
      const rows = page.locator(".yasr tbody tr");
      const counter = page.locator(".yasr .dt-info");
      /** The row numbers and labels of the rows shown. */
      const shown = async () => {
        const cells = await rows.evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim()))
        );
        return cells.map((row) => `${row[0]} ${row.at(-1)}`);
      };
      const run = async (query: string) => {
        await page.evaluate(
          `document.querySelector(".yasqe .CodeMirror").CodeMirror.setValue(${
            JSON.stringify(query)
          })`,
        );
        await page.locator(".yasqe_queryButton").click();
      };
      await page.goto(`${service.url}/ui/sparql`);
      await page.locator(".yasqe .CodeMirror").waitFor();

      await t.step("the first page is drawn at once, with the row count", async () => {
        await page.evaluate(WATCH_THE_DRAW);
        await run(LARGE_ANSWER_QUERY);
        await counter.filter({ hasText: LARGE_ANSWER_TOTAL }).waitFor({ timeout: 60_000 });
        assert.equal(await rows.count(), PAGE_ROWS);
        assert.equal(await counter.innerText(), `Rows 1–${PAGE_ROWS} of ${LARGE_ANSWER_TOTAL}`);
        const drawn = await shown();
        assert.equal(drawn[0], "1 Thing 0");
        assert.equal(drawn.at(-1), `${PAGE_ROWS} Thing ${PAGE_ROWS - 1}`);
        const drawMs = await page.evaluate<number>(DRAW_TIME);
        const longestTask = await page.evaluate<number>("drawWatch.longestTask");
        console.log(
          `[e2e] 10,000 rows: first page ${Math.round(drawMs)} ms after the answer, ` +
            `longest task ${Math.round(longestTask)} ms`,
        );
        assert.ok(drawMs < DRAW_BUDGET_MS, `the first page took ${drawMs} ms`);
        assert.ok(longestTask < DRAW_BUDGET_MS, `the tab was busy for ${longestTask} ms at once`);
        await screenshot(page, "workbench_sparql_large_answer");
      });

      await t.step("the pager moves to the next and the last page, by keyboard too", async () => {
        // DataTables' pager: <button>s in the tab order, with role "link" and a name each.
        const pager = page.locator(".yasr .dt-paging");
        await pager.getByRole("link", { name: "Next page" }).click();
        await counter.filter({ hasText: `Rows ${PAGE_ROWS + 1}–` }).waitFor();
        assert.equal(await counter.innerText(), `Rows 101–200 of ${LARGE_ANSWER_TOTAL}`);
        assert.equal(await rows.count(), PAGE_ROWS);
        assert.deepEqual((await shown()).slice(0, 1), ["101 Thing 100"]);
        await pager.getByRole("link", { name: "Last page" }).focus();
        await page.keyboard.press("Enter");
        await counter.filter({ hasText: "Rows 9,901–" }).waitFor();
        assert.equal(await counter.innerText(), `Rows 9,901–10,000 of ${LARGE_ANSWER_TOTAL}`);
        const last = await shown();
        assert.equal(last.length, PAGE_ROWS);
        assert.equal(last[0], "9901 Thing 9900");
        assert.equal(last.at(-1), "10000 Thing 9999");
        await pager.getByRole("link", { name: "First page" }).click();
        await counter.filter({ hasText: "Rows 1–" }).waitFor();
      });

      await t.step("page sizes stop at 1,000 rows (no 'All')", async () => {
        const sizes = page.getByLabel("Rows a page");
        assert.deepEqual(await sizes.locator("option").allInnerTexts(), [
          "10",
          "50",
          "100",
          "200",
          "1000",
        ]);
        await sizes.selectOption("200");
        await counter.filter({ hasText: "Rows 1–200 " }).waitFor();
        assert.equal(await rows.count(), 200);
        // Back to the default for the next run in this browser profile.
        await sizes.selectOption(String(PAGE_ROWS));
        await counter.filter({ hasText: `Rows 1–${PAGE_ROWS} ` }).waitFor();
      });

      await t.step("small SELECT, ASK and CONSTRUCT answers show as before", async () => {
        await run("SELECT ?n WHERE { VALUES ?n { 1 2 3 } }");
        await counter.filter({ hasText: "Rows 1–3 of 3" }).waitFor({ state: "attached" });
        assert.equal(await rows.count(), 3);
        await run("ASK {}");
        await page.locator(".yasr .booleanResult", { hasText: "True" }).waitFor();
        // YASR reads a CONSTRUCT answer's triples into the same table.
        await run("CONSTRUCT { <urn:a> <urn:b> ?n } WHERE { VALUES ?n { 1 2 } }");
        await counter.filter({ hasText: "Rows 1–2 of 2" }).waitFor({ state: "attached" });
        assert.match(await rows.first().innerText(), /urn:b/);
        assert.ok(await page.locator("#query-problem").isHidden());
      });

      assert.deepEqual(foreign, [], "requests that left the machine");
      assert.deepEqual(problems, [], "script errors or blocked resources");
    } finally {
      await context.close();
      await service.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    }
  },
});
