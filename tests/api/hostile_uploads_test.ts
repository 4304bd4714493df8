/**
 * Hostile sizes, uploads and queries (issue 7, point 2): a 50 MB literal against the
 * default body limit (413 before the body is parsed, with a declared length or chunked)
 * and against a raised one (accepted, with memory bounded by a multiple of the body);
 * multipart uploads to SHACL generation with no file, two files, a huge file and hostile
 * RDF inside; the SPARQL query tool with updates, federation (`SERVICE`), a huge and a
 * deeply nested query.
 *
 * The service runs as its own process; each refusal asserts status, problem type, time,
 * memory where the case is about memory, that nothing was written, and that the service
 * keeps serving.
 */
import { strict as assert } from "node:assert";
import { storeBackends } from "../support/service.ts";
import {
  assertStillServing,
  assertStillWrites,
  expectRefused,
  hostileItemUri,
  type HostileService,
  itemParams,
  outboxDrained,
  peakMemoryProbe,
  rawUpload,
  startConnectionCounter,
  startHostileService,
} from "../support/hostile.ts";

const TITLE = "http://purl.org/dc/terms/title";
const MiB = 1024 * 1024;
const LITERAL_BYTES = 50_000_000;

/**
 * Refusing an oversized body keeps at most the limit (16 MiB) of it in memory, and only
 * when it arrives chunked; with a declared length nothing is read. 96 MiB leaves room for
 * the V8 heap's own growth; a service that buffered the 50 MB body would pass it.
 */
const OVERSIZE_MEMORY_LIMIT = 96 * MiB;

/**
 * Sending 50 MB over loopback while other suites load the two cores: measured at 1–4 s.
 * The bound catches a service that stalls on the body, not a slow machine.
 */
const OVERSIZE_TIME_LIMIT_MS = 30_000;

const embedded = storeBackends().filter((backend) => backend.name === "embedded");

function hostileTest(
  name: string,
  fn: (service: HostileService) => Promise<void>,
  options: { env?: Record<string, string>; backends?: typeof embedded } = {},
): void {
  for (const backend of options.backends ?? embedded) {
    Deno.test({
      name: `${name} [${backend.name}]`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const service = await startHostileService(backend, options.env);
        try {
          await fn(service);
        } finally {
          await service.close();
        }
      },
    });
  }
}

/** A JSON-LD item whose title is a 50 MB literal, and the same as Turtle. */
function bigLiteralBodies(root: string): { contentType: string; body: string }[] {
  const literal = "x".repeat(LITERAL_BYTES);
  return [
    {
      contentType: "application/ld+json",
      body: `{"@id": "${root}", "${TITLE}": "${literal}"}`,
    },
    { contentType: "text/turtle", body: `<${root}> <${TITLE}> """${literal}""" .` },
  ];
}

hostileTest("a 50 MB literal over the default 16 MiB limit is a 413", async (service) => {
  const collection = encodeURIComponent(service.collection);
  const targets: [string, string, string[]][] = [
    ["PUT", `/api/item?collection=${collection}`, ["application/ld+json", "text/turtle"]],
    ["POST", `/api/item?${itemParams(service, service.canary.uri)}`, ["text/turtle"]],
    ["POST", `/api/item/hash?collection=${collection}`, ["application/ld+json"]],
    ["GET", `/api/item/hash?collection=${collection}`, ["application/ld+json"]],
    [
      "POST",
      `/api/item/initialize?collection=${collection}&uri=${encodeURIComponent(service.canary.uri)}`,
      ["application/ld+json"],
    ],
  ];
  for (const [method, path, types] of targets) {
    const root = hostileItemUri("big");
    for (const { contentType, body } of bigLiteralBodies(root)) {
      if (!types.includes(contentType)) continue;
      // fetch declares the length; the raw socket sends it chunked, with no length at all.
      for (const chunked of method === "GET" ? [true] : [false, true]) {
        const label = `${method} ${path} ${contentType} ${chunked ? "chunked" : "with length"}`;
        await expectRefused(service, {
          send: async (s) =>
            chunked || method === "GET"
              ? await rawUpload(`${s.url}${path}`, {
                method,
                headers: { "Content-Type": contentType },
                body,
                chunked,
              })
              : await s.fetch(path, { method, headers: { "Content-Type": contentType }, body }),
          status: 413,
          slug: "body-too-large",
          withinMs: OVERSIZE_TIME_LIMIT_MS,
          maxGrowthBytes: OVERSIZE_MEMORY_LIMIT,
          absent: [root],
        }).catch((error) => {
          throw new Error(`${label}: ${error.message}`, { cause: error });
        });
      }
    }
  }
  await assertStillWrites(service);
});

/**
 * With `SERVICE_HTTP_MAX_BODY` raised to 64 MiB a 50 MB literal is within the contract:
 * docs/api.md limits bodies, not literals, so the right answer is to store it. What must hold is
 * that memory stays a bounded multiple of the body (measured ~6×, 320 MB, for the write)
 * and that the literal comes back whole.
 */
hostileTest("with a 64 MiB limit a 50 MB literal is stored within bounded memory", async (s) => {
  for (const { contentType, body } of bigLiteralBodies("ROOT")) {
    const root = hostileItemUri("big-accepted");
    // The previous item's document is built on an indexing worker of the same process.
    await outboxDrained(s);
    const memory = peakMemoryProbe(s.process);
    const started = performance.now();
    const created = await s.fetch(`/api/item?collection=${encodeURIComponent(s.collection)}`, {
      method: "PUT",
      headers: { "Content-Type": contentType },
      body: body.replace("ROOT", root),
    });
    const text = await created.text();
    const elapsed = performance.now() - started;
    const growth = memory.growth();
    console.log(
      `${contentType}: ${created.status} in ${Math.round(elapsed)} ms, ` +
        `RSS growth ${(growth / MiB).toFixed(0)} MiB`,
    );
    assert.equal(created.status, 201, text);
    assert.ok(elapsed < 60_000, `stored in ${Math.round(elapsed)} ms`);
    assert.ok(growth < 1024 * MiB, `RSS grew ${(growth / MiB).toFixed(0)} MiB for 50 MB`);
    const read = await s.fetch(`/api/item.nt?${itemParams(s, root)}`);
    assert.equal(read.status, 200);
    const nt = await read.text();
    assert.equal(nt.length, `<${root}> <${TITLE}> "${"x".repeat(LITERAL_BYTES)}" .\n`.length);
    await assertStillServing(s);
  }
  // Just above the raised limit is still refused before parsing.
  await outboxDrained(s);
  await expectRefused(s, {
    send: (service) =>
      service.fetch(`/api/item?collection=${encodeURIComponent(service.collection)}`, {
        method: "PUT",
        headers: { "Content-Type": "text/turtle" },
        body: "#".repeat(64 * MiB + 1),
      }),
    status: 413,
    slug: "body-too-large",
    withinMs: OVERSIZE_TIME_LIMIT_MS,
    maxGrowthBytes: OVERSIZE_MEMORY_LIMIT,
  });
}, { env: { SERVICE_HTTP_MAX_BODY: String(64 * MiB) } });

/** The SHACL generation path with `parts` as the multipart body. */
function shaclUpload(parts: [string, string | File][]): (s: HostileService) => Promise<Response> {
  return (s) => {
    const form = new FormData();
    for (const [name, value] of parts) form.append(name, value);
    return s.fetch(
      `/api/admin/tools/generate-shacl?namespace=${
        encodeURIComponent("https://data.example.org/shapes/")
      }`,
      { method: "POST", body: form },
    );
  };
}

const TURTLE = `<https://x.org/s> a <https://x.org/C> ; <https://x.org/p> "v" .`;

hostileTest("multipart uploads: no file, two files, a huge file, hostile RDF", async (s) => {
  const listener = startConnectionCounter();
  try {
    const file = (text: string, name: string, type = "") => new File([text], name, { type });
    let laughs = `<!ENTITY lol0 "lollollollollollollollollollol">`;
    for (let i = 1; i <= 9; i++) {
      laughs += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
    }
    const bomb = `<?xml version="1.0"?><!DOCTYPE rdf:RDF [${laughs}]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="https://x.org/s"><rdf:value>&lol9;</rdf:value></rdf:Description>
</rdf:RDF>`;
    const cases: [string, (s: HostileService) => Promise<Response>, number, string][] = [
      ["no file part", shaclUpload([["note", "no file here"]]), 400, "missing-file"],
      ["'file' as a plain field", shaclUpload([["file", TURTLE]]), 400, "missing-file"],
      [
        "two file parts, neither named 'file'",
        shaclUpload([["a", file(TURTLE, "a.ttl")], ["b", file(TURTLE, "b.ttl")]]),
        400,
        "ambiguous-file",
      ],
      [
        "two parts both named 'file'",
        shaclUpload([["file", file(TURTLE, "a.ttl")], ["file", file(TURTLE, "b.ttl")]]),
        400,
        "ambiguous-file",
      ],
      [
        "an empty multipart body",
        (service) =>
          service.fetch(
            `/api/admin/tools/generate-shacl?namespace=${
              encodeURIComponent("https://data.example.org/shapes/")
            }`,
            {
              method: "POST",
              headers: { "Content-Type": "multipart/form-data; boundary=xyz" },
              body: "",
            },
          ),
        400,
        "invalid-multipart",
      ],
      [
        "a multipart body cut off",
        (service) =>
          service.fetch(
            `/api/admin/tools/generate-shacl?namespace=${
              encodeURIComponent("https://data.example.org/shapes/")
            }`,
            {
              method: "POST",
              headers: { "Content-Type": "multipart/form-data; boundary=xyz" },
              body: `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.ttl"\r\n` +
                `\r\n${TURTLE}`,
            },
          ),
        // The Fetch API's multipart reader keeps no part that has no closing boundary.
        400,
        "missing-file",
      ],
      [
        "not multipart at all",
        (service) =>
          service.fetch(
            `/api/admin/tools/generate-shacl?namespace=${
              encodeURIComponent("https://data.example.org/shapes/")
            }`,
            { method: "POST", headers: { "Content-Type": "text/turtle" }, body: TURTLE },
          ),
        415,
        "unsupported-media-type",
      ],
      [
        "a file of no known RDF format",
        shaclUpload([["file", file(TURTLE, "data.exe")]]),
        415,
        "unsupported-media-type",
      ],
      [
        "a billion-laughs RDF/XML file",
        shaclUpload([["file", file(bomb, "bomb.rdf")]]),
        400,
        "rdf-syntax",
      ],
      [
        "an RDF/XML file with an external entity",
        shaclUpload([[
          "file",
          file(
            `<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "${listener.url}x">]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="https://x.org/s"><rdf:value>&x;</rdf:value></rdf:Description>
</rdf:RDF>`,
            "xxe.rdf",
          ),
        ]]),
        400,
        "rdf-syntax",
      ],
      [
        "a JSON-LD file with a remote context",
        shaclUpload([[
          "file",
          file(
            JSON.stringify({ "@context": `${listener.url}ctx`, "@id": "https://x.org/s" }),
            "remote.jsonld",
          ),
        ]]),
        400,
        "remote-context-refused",
      ],
      [
        "a Turtle file with an IRI holding '>'",
        shaclUpload([["file", file(`<https://x.org/a\\u003E> a <https://x.org/C> .`, "a.ttl")]]),
        400,
        "rdf-syntax",
      ],
    ];
    for (const [name, send, status, slug] of cases) {
      await expectRefused(s, { send, status, slug, maxGrowthBytes: OVERSIZE_MEMORY_LIMIT })
        .catch((error) => {
          throw new Error(`${name}: ${error.message}`, { cause: error });
        });
    }
    // A huge file: over the limit, with a declared length and chunked.
    const huge = new File(["x".repeat(LITERAL_BYTES)], "huge.ttl");
    const namespace = encodeURIComponent("https://data.example.org/shapes/");
    await expectRefused(s, {
      send: shaclUpload([["file", huge]]),
      status: 413,
      slug: "body-too-large",
      withinMs: OVERSIZE_TIME_LIMIT_MS,
      maxGrowthBytes: OVERSIZE_MEMORY_LIMIT,
    });
    const boundary = "hostile-boundary";
    await expectRefused(s, {
      send: (service) =>
        rawUpload(`${service.url}/api/admin/tools/generate-shacl?namespace=${namespace}`, {
          method: "POST",
          headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
          body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
            `filename="huge.ttl"\r\n\r\n${"x".repeat(LITERAL_BYTES)}\r\n--${boundary}--\r\n`,
          chunked: true,
        }),
      status: 413,
      slug: "body-too-large",
      withinMs: OVERSIZE_TIME_LIMIT_MS,
      maxGrowthBytes: OVERSIZE_MEMORY_LIMIT,
    });
    assert.equal(listener.connections(), 0, "an upload made the service connect somewhere");
  } finally {
    listener.close();
  }
  // The same path still works for a normal upload.
  const shapes = await shaclUpload([["file", new File([TURTLE], "ok.ttl")]])(s);
  assert.equal(shapes.status, 200, await shapes.text());
  await assertStillWrites(s);
});

hostileTest("the query tool refuses updates, federation and oversized queries", async (s) => {
  const listener = startConnectionCounter();
  try {
    const query =
      (text: string, contentType = "application/sparql-query") => (service: HostileService) =>
        service.fetch("/api/admin/tools/sparqlui/query?endpoint=store", {
          method: "POST",
          headers: { "Content-Type": contentType },
          body: text,
        });
    const nested = `SELECT * WHERE ${"{ ".repeat(50_000)}?s ?p ?o${" }".repeat(50_000)}`;
    const cases: [string, (s: HostileService) => Promise<Response>, number, string][] = [
      ["DROP ALL", query("DROP ALL"), 400, "sparql-update-refused"],
      [
        "an update after a query",
        query("SELECT * WHERE { ?s ?p ?o } ; DROP ALL"),
        400,
        "invalid-sparql",
      ],
      ["LOAD of a local file", query("LOAD <file:///etc/passwd>"), 400, "sparql-update-refused"],
      [
        "an update as the form field",
        query(`query=${encodeURIComponent("CLEAR ALL")}`, "application/x-www-form-urlencoded"),
        400,
        "sparql-update-refused",
      ],
      [
        "SERVICE to a loopback URL",
        query(`SELECT * WHERE { SERVICE <${listener.url}sparql> { ?s ?p ?o } }`),
        400,
        "sparql-service-refused",
      ],
      [
        "SERVICE SILENT nested in OPTIONAL",
        query(
          `SELECT * WHERE { ?s ?p ?o OPTIONAL { { SERVICE SILENT <${listener.url}q> { ?s ?q ?v } } } }`,
        ),
        400,
        "sparql-service-refused",
      ],
      [
        "SERVICE with a variable endpoint",
        query(`SELECT * WHERE { BIND(<${listener.url}> AS ?e) SERVICE ?e { ?s ?p ?o } }`),
        400,
        "sparql-service-refused",
      ],
      [
        "a form without a query",
        query("other=1", "application/x-www-form-urlencoded"),
        400,
        "missing-query",
      ],
      ["a query nested 50,000 deep", query(nested), 400, "invalid-sparql"],
      ["a query over the body limit", query("#".repeat(16 * MiB + 1)), 413, "body-too-large"],
      // 66 bytes × 4,200 > 256 KiB: parsed, this would hold the event loop for about half a second.
      ["a query over maxQueryBytes", query(longQuery(4_200)), 413, "query-too-large"],
      [
        "a query over maxQueryBytes as the form field",
        query(`query=${encodeURIComponent(longQuery(4_200))}`, "application/x-www-form-urlencoded"),
        413,
        "query-too-large",
      ],
    ];
    for (const [name, send, status, slug] of cases) {
      await expectRefused(s, { send, status, slug, maxGrowthBytes: OVERSIZE_MEMORY_LIMIT })
        .catch((error) => {
          throw new Error(`${name}: ${error.message}`, { cause: error });
        });
    }
    assert.equal(listener.connections(), 0, "a query made the store connect to its URL");
  } finally {
    listener.close();
  }
}, { backends: storeBackends() });

hostileTest("the query tool still runs a long query under maxQueryBytes", async (s) => {
  const text = longQuery(3_900); // 66 bytes × 3,900 < 256 KiB
  assert.ok(new TextEncoder().encode(text).length < 256 * 1024);
  const response = await s.fetch("/api/admin/tools/sparqlui/query?endpoint=store", {
    method: "POST",
    headers: {
      "Content-Type": "application/sparql-query",
      Accept: "application/sparql-results+json",
    },
    body: text,
  });
  assert.equal(response.status, 200, await response.clone().text());
  const results = await response.json();
  assert.deepEqual(results.head.vars, ["s"]);
}, { backends: storeBackends() });

hostileTest(
  "a query the embedded engine cannot run fails alone and leaves it working",
  async (s) => {
    const ask = (text: string) =>
      s.fetch("/api/admin/tools/sparqlui/query?endpoint=store", {
        method: "POST",
        headers: {
          "Content-Type": "application/sparql-query",
          Accept: "application/sparql-results+json",
        },
        body: text,
      });
    const canary = `SELECT ?p WHERE { GRAPH ?g { <${s.canary.uri}> ?p ?o } } LIMIT 1`;
    const before = await ask(canary);
    assert.equal((await before.json()).results.bindings.length, 1);
    // 3,900 patterns of one join: more tables than SQLite joins in one statement (the compiled
    // path); oxigraph's WebAssembly, which answered SPARQL before, ran out of bounds on it.
    const pattern = "?s <https://example.org/vocab#predicate> ?o .\n";
    const trapping = await ask(`SELECT ?s WHERE {\n${pattern.repeat(3_900)}} LIMIT 1`);
    const problem = await trapping.json();
    assert.equal(trapping.status, 400, JSON.stringify(problem));
    assert.equal(problem.type, "/problems/query-failed");
    assert.match(problem.detail, /^The query failed: \S/);
    // Once, every later query failed with the same trap until the service restarted.
    const after = await ask(canary);
    assert.equal(after.status, 200);
    assert.equal((await after.json()).results.bindings.length, 1);
  },
);

/** A valid SELECT with a VALUES list of `iris` IRIs, 66 bytes each (a long look-up list). */
function longQuery(iris: number): string {
  const values = Array.from(
    { length: iris },
    (_, i) => `<https://example.org/id/item-${String(i).padStart(8, "0")}-${"x".repeat(26)}>\n`,
  );
  return `SELECT ?s WHERE {\nVALUES ?s {\n${values.join("")}} ?s ?p ?o } LIMIT 1`;
}
