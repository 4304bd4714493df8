/**
 * The item page's "document the search index holds", in a real browser, on both search
 * engines: an item whose `rdfs:range` is an IRI and a blank node at once (OWL and SKOS state
 * ranges so) shows the document as the service built it, one `range` field with both values,
 * not OpenSearch's layout (`range@node`, src/search_opensearch/physical_fields.ts). Runs when
 * `CHROMIUM_PATH` names a Chromium binary; the OpenSearch half when a node is configured.
 */
import { strict as assert } from "node:assert";
import { startTestService, type TestService } from "../support/service.ts";
import { CHROMIUM_PATH, launchLoopbackBrowser, watchProblems } from "../support/browser.ts";
import { deleteIndicesWithPrefix, searchBackends } from "../support/opensearch.ts";
import { SEARCH_YAML } from "../support/backends.ts";

const COLLECTION = "https://data.example.org/collection/indexed-terms";
const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
const OWL = "http://www.w3.org/2002/07/owl#";
const SKOS = "http://www.w3.org/2004/02/skos/core#";

const YAML = `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${SEARCH_YAML}workspaces:
  - uri: https://data.example.org/workspace/indexed
    name: Indexed
    collections:
      - { uri: ${COLLECTION}, name: Terms, index: indexed-terms }
`;

async function put(service: TestService, uri: string, turtle: string) {
  const response = await service.fetch(
    `/api/item?${new URLSearchParams({ collection: COLLECTION, item: uri })}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}

/** The item's hit document, once the outbox has indexed it. */
async function indexedDocument(service: TestService, uri: string) {
  const query = new URLSearchParams({ collection: COLLECTION, filter: `uri:${uri}` });
  for (let tries = 0;; tries++) {
    const answer = await (await service.fetch(`/api/search?${query}`)).json();
    if (answer.hits?.length === 1) return answer.hits[0].document;
    const ready = tries < 150 ? undefined : await (await service.fetch("/ready")).text();
    assert.ok(ready === undefined, `${uri} never reached the search index: ${ready}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const backend of searchBackends("indexed-doc")) {
  Deno.test({
    name: `[e2e/${backend.name}] the item page shows the indexed document as built: ` +
      "a field that is an IRI and a blank node",
    ignore: !CHROMIUM_PATH || backend.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const env = backend.env();
      const service = await startTestService({ yaml: YAML, env });
      const userDataDir = await Deno.makeTempDir({ prefix: "rcs-chromium-" });
      const foreign: string[] = [];
      const problems: string[] = [];
      const context = await launchLoopbackBrowser(userDataDir, foreign);
      const base = `https://data.example.org/id/indexed-${crypto.randomUUID()}`;
      const [plain, mixed] = [`${base}/related`, `${base}/mixed`];
      try {
        // The IRI-only item first: on OpenSearch it makes `range` a text field.
        await put(
          service,
          plain,
          `<${plain}> <${RDFS}label> "Related" ; <${RDFS}range> <${SKOS}Concept> .`,
        );
        await put(
          service,
          mixed,
          `<${mixed}> <${RDFS}label> "Mixed" ;
            <${RDFS}range> <${SKOS}OrderedCollection>,
              [ <${OWL}unionOf> ( <${SKOS}Concept> <${SKOS}Collection> ) ] .`,
        );
        await indexedDocument(service, plain);
        const document = await indexedDocument(service, mixed);
        assert.deepEqual(document.range, [
          `${SKOS}OrderedCollection`,
          {
            unionOf: {
              first: `${SKOS}Concept`,
              rest: {
                first: `${SKOS}Collection`,
                rest: "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil",
              },
            },
          },
        ]);

        const page = context.pages()[0] ?? await context.newPage();
        watchProblems(page, problems);
        await page.goto(
          `${service.url}/ui/item?${new URLSearchParams({ collection: COLLECTION, item: mixed })}`,
        );
        const shown = page.locator("#indexed pre");
        await shown.waitFor();
        assert.deepEqual(JSON.parse(await shown.innerText()), document);
        assert.ok(!(await shown.innerText()).includes("@node"), "no OpenSearch layout shown");
        assert.deepEqual(foreign, []);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
        await service.close();
        await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
        const prefix = env.SERVICE_OPENSEARCH_INDEX_PREFIX;
        if (prefix) await deleteIndicesWithPrefix(env.SERVICE_OPENSEARCH_URL, prefix);
      }
    },
  });
}
