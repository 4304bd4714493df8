/**
 * `/sparql` against real SPARQL clients, run as subprocesses (tests/clients/): Apache Jena's
 * QueryExecutionHTTP, and Python's SPARQLWrapper and rdflib. Two items are created through
 * the API with known triples; each client's SELECT rows (unbound cells included), ASK
 * answers (true and false) and CONSTRUCT graph, in every results format it reads, must
 * equal those triples, on each store backend.
 *
 * Needs `java` and Jena's jars (`scripts/jena_client.sh`, or `JENA_CLIENT_LIB`) and a
 * Python with rdflib and SPARQLWrapper (`DEBIAN_PYTHON`, default /usr/bin/python3: Debian's
 * python3-rdflib and python3-sparqlwrapper); a client that is missing is ignored, with one
 * printed line saying why. `.ci/run` provides both.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  startTestService,
  storeBackends,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { SPARQL_PROTOCOL_YAML } from "../support/sparql_protocol.ts";
import { commandRuns, jenaJars } from "../support/jena.ts";

const DCT = "http://purl.org/dc/terms/";
const XSD = "http://www.w3.org/2001/XMLSchema#";
const CLIENTS = new URL("../clients/", import.meta.url).pathname;

const YAML = SPARQL_PROTOCOL_YAML;

/**
 * A client program: how to run it with its arguments (endpoint, SELECT, CONSTRUCT, then
 * ASK queries), or why it cannot run here.
 */
interface Client {
  name: string;
  missing?: string;
  command(args: string[]): Deno.Command;
}

const clients = [jenaClient(), pythonClient()];
const missing = clients.filter((client) => client.missing);
if (missing.length > 0) {
  console.log(
    `SPARQL client tests ignored: ${missing.map((c) => `${c.name}: ${c.missing}`).join("; ")}`,
  );
}

for (const backend of storeBackends()) {
  for (const client of clients) {
    Deno.test({
      name: `[sparql clients/${backend.name}] ${client.name}: SELECT, ASK, CONSTRUCT`,
      ignore: backend.skip !== undefined || client.missing !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const service = await startTestService({ yaml: YAML, env: backend.env });
        try {
          await checkClient(service, client);
        } finally {
          await service.close();
        }
      },
    });
  }
}

async function checkClient(service: TestService, client: Client): Promise<void> {
  const first = uniqueItemUri("client");
  const second = uniqueItemUri("client");
  // Literals that trip writers: tab, quote and newline, a comma, non-ASCII, types, languages.
  const title = 'Tab\there, "quoted"\nline two';
  await createItem(
    service,
    first,
    `<${first}> <${DCT}title> "${
      title.replaceAll("\t", "\\t").replaceAll('"', '\\"')
        .replaceAll("\n", "\\n")
    }"@en ;
      <${DCT}created> "2024-05-01"^^<${XSD}date> ;
      <${DCT}extent> 7 ;
      <${DCT}description> "plain, with comma — ü" ;
      <${DCT}relation> <${second}> .`,
  );
  await createItem(
    service,
    second,
    `<${second}> <${DCT}title> "Zweites"@de ; <${DCT}isPartOf> <${first}> .`,
  );
  const expected: [string, string, string][] = [
    [`<${first}>`, `<${DCT}title>`, `"${title}"@en`],
    [`<${first}>`, `<${DCT}created>`, `"2024-05-01"^^<${XSD}date>`],
    [`<${first}>`, `<${DCT}extent>`, `"7"^^<${XSD}integer>`],
    [`<${first}>`, `<${DCT}description>`, `"plain, with comma — ü"`],
    [`<${first}>`, `<${DCT}relation>`, `<${second}>`],
    [`<${second}>`, `<${DCT}title>`, `"Zweites"@de`],
    [`<${second}>`, `<${DCT}isPartOf>`, `<${first}>`],
  ];
  // The filter leaves out the metadata graph's records about the items, which Fuseki's
  // union graph also holds (docs/api.md, SPARQL endpoint).
  const pattern = `VALUES ?s { <${first}> <${second}> } ?s ?p ?o
    FILTER(!STRSTARTS(STR(?p), "urn:rdf-content-service:"))`;
  // ?whole is bound on the second item's rows only: unbound cells in every format.
  const select =
    `SELECT ?s ?p ?o ?whole WHERE { ${pattern} OPTIONAL { ?s <${DCT}isPartOf> ?whole } }`;
  const construct = `CONSTRUCT { ?s ?p ?o } WHERE { ${pattern} }`;
  const asks = [
    `ASK { <${first}> <${DCT}relation> <${second}> }`,
    `ASK { <${second}> <${DCT}relation> <${first}> }`,
  ];

  const output = await client.command([`${service.url}/sparql`, select, construct, ...asks])
    .output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.ok(output.success, `${client.name} failed:\n${stderr}`);
  const answers: Record<string, unknown> = JSON.parse(new TextDecoder().decode(output.stdout));

  const triples = sorted(expected);
  const selectRows = (values: (term: string) => string, unbound: string | null) =>
    sorted(expected.map((triple) => {
      const whole = triple[0] === `<${second}>` ? values(`<${first}>`) : unbound;
      return [...triple.map(values), whole];
    }));
  for (const [label, answer] of Object.entries(answers)) {
    const kind = label.split(" ").find((word) => ["select", "ask", "construct"].includes(word));
    if (kind === "ask") {
      assert.deepEqual(answer, [true, false], label);
    } else if (kind === "construct") {
      assert.deepEqual(sorted(answer as string[][]), triples, label);
    } else {
      const cells = (row: Record<string, string>) => [row.s, row.p, row.o, row.whole ?? null];
      const rows = (answer as Record<string, string>[]).map(cells);
      // CSV carries values without term types, and an unbound cell as an empty one.
      const expectedRows = label.endsWith("csv")
        ? selectRows(termValue, "")
        : selectRows((term) => term, null);
      assert.deepEqual(sorted(rows), expectedRows, label);
    }
  }
  for (const kind of ["select", "ask", "construct"]) {
    assert.ok(Object.keys(answers).some((label) => label.includes(kind)), `no ${kind} answer`);
  }
}

function sorted(rows: (string | null)[][]): string[] {
  return rows.map((row) => JSON.stringify(row)).sort();
}

/** The value of a term written `<iri>`, `"lexical"…` (what CSV carries). */
function termValue(term: string): string {
  return term.startsWith("<") ? term.slice(1, -1) : term.slice(1, term.lastIndexOf('"'));
}

async function createItem(service: TestService, uri: string, turtle: string): Promise<void> {
  const response = await service.fetch(
    `/api/item?collection=${encodeURIComponent(DEMO_COLLECTION)}&item=${encodeURIComponent(uri)}`,
    { method: "PUT", headers: { "Content-Type": "text/turtle" }, body: turtle },
  );
  assert.equal(response.status, 201, await response.text());
}

function jenaClient(): Client {
  const { lib, missing } = jenaJars();
  const client: Client = {
    name: "Apache Jena",
    command: (args) =>
      new Deno.Command("java", {
        args: ["-cp", `${lib}/*`, `${CLIENTS}SparqlClient.java`, ...args],
        stdin: "null",
      }),
  };
  client.missing = missing;
  return client;
}

function pythonClient(): Client {
  const python = Deno.env.get("DEBIAN_PYTHON") ?? "/usr/bin/python3";
  const client: Client = {
    name: "SPARQLWrapper and rdflib",
    command: (args) =>
      new Deno.Command(python, { args: [`${CLIENTS}sparql_client.py`, ...args], stdin: "null" }),
  };
  if (!commandRuns(python, ["-c", "import rdflib, SPARQLWrapper"])) {
    client.missing = `${python} lacks rdflib or SPARQLWrapper (apt python3-rdflib ` +
      `python3-sparqlwrapper)`;
  }
  return client;
}
