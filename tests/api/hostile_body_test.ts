/**
 * Hostile request bodies (issue 7, point 2), sent to every endpoint that parses RDF from a
 * body — create, update, initialise, and the hash as a GET (raw socket) and a POST — on
 * the service running as its own process: malformed and truncated JSON, JSON nested
 * 100,000 deep, XML entity bombs and external entities, remote JSON-LD contexts, IRIs and
 * language tags that no RDF syntax can write, a GET hash with no body.
 *
 * Each case asserts the exact status and problem type, a bound on time (and on memory
 * where the attack is about memory), that nothing was written (named items absent, the
 * collection's item count unchanged, the canary item unchanged after an update attempt),
 * and that the service keeps serving.
 */
import { strict as assert } from "node:assert";
import { rawRequest } from "../support/raw_http.ts";
import { storeBackends } from "../support/service.ts";
import {
  assertStillWrites,
  expectRefused,
  hostileItemUri,
  type HostileService,
  rawToResponse,
  startConnectionCounter,
  startHostileService,
} from "../support/hostile.ts";

const TITLE = "http://purl.org/dc/terms/title";
const HAS_PART = "http://purl.org/dc/terms/hasPart";
const MiB = 1024 * 1024;
const DEPTH = 100_000;

/**
 * Memory bound of the deep-nesting and entity-bomb cases. The bodies are at most ~5 MB;
 * refusing them costs the parsed JSON tree or nothing (measured: under 60 MiB). A bomb that
 * got expanded, or a parser that kept a frame per level alive, costs gigabytes.
 */
const BOMB_MEMORY_LIMIT = 192 * MiB;

/** An endpoint that reads RDF from the request body. */
interface BodyEndpoint {
  name: string;
  /** The JSON flavours only, or every RDF syntax. */
  accepts: "json" | "any";
  send(service: HostileService, body: string, contentType: string): Promise<Response>;
}

const ENDPOINTS: BodyEndpoint[] = [
  {
    name: "PUT /api/item",
    accepts: "any",
    send: (service, body, contentType) =>
      service.fetch(`/api/item?collection=${encodeURIComponent(service.collection)}`, {
        method: "PUT",
        headers: { "Content-Type": contentType },
        body,
      }),
  },
  {
    // An update of the canary: refusing it must leave the canary exactly as it was.
    name: "POST /api/item (update)",
    accepts: "any",
    send: (service, body, contentType) =>
      service.fetch(
        `/api/item?collection=${encodeURIComponent(service.collection)}&item=${
          encodeURIComponent(service.canary.uri)
        }`,
        { method: "POST", headers: { "Content-Type": contentType }, body },
      ),
  },
  {
    name: "POST /api/item/initialize",
    accepts: "json",
    send: (service, body, contentType) =>
      service.fetch(
        `/api/item/initialize?collection=${encodeURIComponent(service.collection)}&uri=${
          encodeURIComponent(service.canary.uri)
        }`,
        { method: "POST", headers: { "Content-Type": contentType }, body },
      ),
  },
  {
    name: "GET /api/item/hash",
    accepts: "json",
    send: async (service, body, contentType) => {
      const raw = await rawRequest(
        `${service.url}/api/item/hash?collection=${encodeURIComponent(service.collection)}`,
        { method: "GET", headers: { "Content-Type": contentType }, body },
      );
      return rawToResponse(raw);
    },
  },
  {
    name: "POST /api/item/hash",
    accepts: "json",
    send: (service, body, contentType) =>
      service.fetch(`/api/item/hash?collection=${encodeURIComponent(service.collection)}`, {
        method: "POST",
        headers: { "Content-Type": contentType },
        body,
      }),
  },
];

/** One hostile body and how every endpoint that takes it must refuse it. */
interface BodyCase {
  name: string;
  contentType: string;
  /** Built per run so that the item it would create has a fresh URI. */
  body(root: string): string;
  status: number;
  slug: string;
  maxGrowthBytes?: number;
  /** Checks on the problem body beyond status and type. */
  check?(problem: Record<string, unknown>): void;
}

/** Runs each case against each endpoint that accepts its content type. */
async function refuseEverywhere(service: HostileService, cases: BodyCase[]): Promise<void> {
  for (const hostile of cases) {
    const json = /json/.test(hostile.contentType);
    for (const endpoint of ENDPOINTS) {
      if (endpoint.accepts === "json" && !json) continue;
      const root = hostileItemUri("body");
      const body = hostile.body(root);
      const { problem } = await expectRefused(service, {
        send: (s) => endpoint.send(s, body, hostile.contentType),
        status: hostile.status,
        slug: hostile.slug,
        maxGrowthBytes: hostile.maxGrowthBytes,
        absent: [root],
      }).catch((error) => {
        throw new Error(`${hostile.name} → ${endpoint.name}: ${error.message}`, { cause: error });
      });
      hostile.check?.(problem);
    }
  }
  await assertStillWrites(service);
}

function hostileTest(
  name: string,
  fn: (service: HostileService) => Promise<void>,
  backends = storeBackends().filter((backend) => backend.name === "embedded"),
): void {
  for (const backend of backends) {
    Deno.test({
      name: `${name} [${backend.name}]`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const service = await startHostileService(backend);
        try {
          await fn(service);
        } finally {
          await service.close();
        }
      },
    });
  }
}

const names = (problem: Record<string, unknown>) => JSON.stringify(problem);

hostileTest("malformed, truncated and non-RDF JSON is a 400 naming where", async (service) => {
  const atLine = (line: number) => (problem: Record<string, unknown>) =>
    assert.match(String(problem.detail), new RegExp(`at line ${line}, column \\d+`));
  await refuseEverywhere(service, [
    {
      name: "a value missing",
      contentType: "application/ld+json",
      body: (root) => `{\n  "@id": "${root}",\n  "${TITLE}": \n}`,
      status: 400,
      slug: "rdf-syntax",
      check: atLine(4),
    },
    {
      name: "truncated in the middle of a string",
      contentType: "application/ld+json",
      body: (root) => itemJson(root).slice(0, -12),
      status: 400,
      slug: "rdf-syntax",
      check: atLine(1),
    },
    {
      name: "truncated JSON sent as application/json",
      contentType: "application/json",
      body: (root) => `[${itemJson(root)},\n${itemJson(root).slice(0, 20)}`,
      status: 400,
      slug: "rdf-syntax",
      check: atLine(2),
    },
    {
      name: "truncated RDF/JSON",
      contentType: "application/rdf+json",
      body: (root) => `{"${root}": {"${TITLE}": [{"type": "literal", "value": "x"`,
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "trailing garbage",
      contentType: "application/ld+json",
      body: (root) => `${itemJson(root)} } ; DROP ALL`,
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "JSON that is neither JSON-LD nor RDF/JSON",
      contentType: "application/json",
      body: () => `{"name": "not RDF", "items": [1, 2, 3]}`,
      status: 415,
      slug: "unsupported-media-type",
    },
    {
      name: "a JSON string",
      contentType: "application/ld+json",
      body: () => `"just a string"`,
      status: 400,
      slug: "invalid-jsonld",
    },
    {
      name: "white space only",
      contentType: "application/ld+json",
      body: () => " \n\t ",
      status: 400,
      slug: "empty-body",
    },
  ]);
});

hostileTest("JSON nested 100,000 deep is a 400 within bounded memory", async (service) => {
  const nodes = (root: string) =>
    `{"@id": "${root}", "${HAS_PART}": `.repeat(DEPTH) + `"leaf"` + "}".repeat(DEPTH);
  await refuseEverywhere(service, [
    {
      name: "arrays 100,000 deep",
      contentType: "application/ld+json",
      body: () => "[".repeat(DEPTH) + "]".repeat(DEPTH),
      status: 400,
      slug: "invalid-jsonld",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
      check: (problem) => assert.match(String(problem.detail), /nested too deeply/),
    },
    {
      name: "JSON-LD nodes 100,000 deep",
      contentType: "application/ld+json",
      body: nodes,
      status: 400,
      slug: "invalid-jsonld",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
      check: (problem) => assert.match(String(problem.detail), /nested too deeply/),
    },
    {
      name: "JSON-LD nodes 100,000 deep, sent as application/json",
      contentType: "application/json",
      body: nodes,
      status: 400,
      slug: "invalid-jsonld",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
    },
    {
      name: "a list of lists 100,000 deep",
      contentType: "application/ld+json",
      body: (root) =>
        `{"@id": "${root}", "${HAS_PART}": {"@list": ${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}}`,
      status: 400,
      slug: "invalid-jsonld",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
    },
    {
      name: "RDF/JSON objects 100,000 deep",
      contentType: "application/rdf+json",
      body: (root) => `{"${root}": `.repeat(DEPTH) + "{}" + "}".repeat(DEPTH),
      status: 400,
      slug: "rdf-syntax",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
    },
    {
      name: "nodes 100,000 deep, truncated",
      contentType: "application/ld+json",
      body: (root) => nodes(root).slice(0, -DEPTH / 2),
      status: 400,
      slug: "rdf-syntax",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
    },
  ]);
});

hostileTest("remote JSON-LD contexts are refused and never fetched", async (service) => {
  const listener = startConnectionCounter();
  try {
    const refused = (name: string, body: (root: string) => string): BodyCase => ({
      name,
      contentType: "application/ld+json",
      body,
      status: 400,
      slug: "remote-context-refused",
      check: (problem) => assert.match(String(problem.detail), /is not fetched/, names(problem)),
    });
    const ctx = `${listener.url}context.jsonld`;
    await refuseEverywhere(service, [
      refused("a context URL", (root) => withContext(root, JSON.stringify(ctx))),
      refused(
        "a context URL in an array",
        (root) => withContext(root, JSON.stringify([{ "dct": "http://purl.org/dc/terms/" }, ctx])),
      ),
      refused(
        "@import in a JSON-LD 1.1 context",
        (root) => withContext(root, JSON.stringify({ "@version": 1.1, "@import": ctx })),
      ),
      refused("a scoped context on a used term", (root) =>
        JSON.stringify({
          "@context": { "part": { "@id": HAS_PART, "@context": ctx } },
          "@id": root,
          "part": { "@id": `${root}/part`, [TITLE]: "Part" },
        })),
      refused(
        "a context URL in a nested node",
        (root) =>
          JSON.stringify({ "@id": root, [HAS_PART]: { "@context": ctx, "@id": `${root}/p` } }),
      ),
      refused("a file:// context", (root) => withContext(root, `"file:///etc/passwd"`)),
      {
        // jsonld.js would load a document named by a bare string.
        name: "a JSON string naming a document to load",
        contentType: "application/ld+json",
        body: () => JSON.stringify(`${listener.url}document.jsonld`),
        status: 400,
        slug: "invalid-jsonld",
      },
    ]);
    assert.equal(listener.connections(), 0, "the service connected to a remote context URL");
  } finally {
    listener.close();
  }
});

hostileTest("IRIs and language tags no RDF syntax can write are refused in bodies", async (s) => {
  const jsonld = (name: string, body: (root: string) => object): BodyCase => ({
    name,
    contentType: "application/ld+json",
    body: (root) => JSON.stringify(body(root)),
    status: 400,
    slug: "rdf-syntax",
  });
  await refuseEverywhere(s, [
    jsonld("'>' in a predicate", (root) => ({ "@id": root, "https://x.org/p>q": "x" })),
    jsonld("'>' in an object IRI", (root) => ({
      "@id": root,
      [HAS_PART]: { "@id": "https://x.org/a>};DROP_ALL;#" },
    })),
    jsonld("'{}' in a type", (root) => ({ "@id": root, "@type": "https://x.org/a>{}" })),
    jsonld("a control character in an IRI", (root) => ({
      "@id": root,
      [HAS_PART]: { "@id": "https://x.org/a\u0001b" },
    })),
    jsonld("'>' in a datatype", (root) => ({
      "@id": root,
      [TITLE]: { "@value": "x", "@type": "https://x.org/dt>.<https://x.org/s" },
    })),
    jsonld("a language tag that breaks out", (root) => ({
      "@id": root,
      [TITLE]: { "@value": "x", "@language": "en> . } ; DROP ALL ; #" },
    })),
    {
      name: "'>' in an RDF/JSON subject",
      contentType: "application/rdf+json",
      body: (root) =>
        JSON.stringify({ [`${root}>{}`]: { [TITLE]: [{ type: "literal", value: "x" }] } }),
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "a space in a Turtle IRI",
      contentType: "text/turtle",
      body: (root) => `<${root} x> <${TITLE}> "x" .`,
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "'>' escaped as \\u003E in a Turtle IRI",
      contentType: "text/turtle",
      body: (root) => `<${root}> <${TITLE}> <https://x.org/a\\u003E } ; DROP ALL ; #> .`,
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "a control character escaped in an N-Triples datatype",
      contentType: "application/n-triples",
      body: (root) => `<${root}> <${TITLE}> "x"^^<https://x.org/dt\\u0000> .\n`,
      status: 400,
      slug: "rdf-syntax",
    },
    {
      name: "'>' escaped in an RDF/XML about",
      contentType: "application/rdf+xml",
      body: (root) =>
        `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:dct="http://purl.org/dc/terms/">
  <rdf:Description rdf:about="${root}&gt; } ; DROP ALL ; #"><dct:title>x</dct:title></rdf:Description>
</rdf:RDF>`,
      status: 400,
      slug: "rdf-syntax",
    },
  ]);
}, storeBackends());

hostileTest("RDF/XML entity bombs and external entities are refused", async (service) => {
  const listener = startConnectionCounter();
  try {
    const xml = (doctype: string, title: string) => (root: string) =>
      `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
${doctype}
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:dct="http://purl.org/dc/terms/">
  <rdf:Description rdf:about="${root}"><dct:title>${title}</dct:title></rdf:Description>
</rdf:RDF>`;
    const refused = (name: string, body: (root: string) => string): BodyCase => ({
      name,
      contentType: "application/rdf+xml",
      body,
      status: 400,
      slug: "rdf-syntax",
      maxGrowthBytes: BOMB_MEMORY_LIMIT,
      check: (problem) => {
        assert.match(String(problem.detail), /document type declaration refused/);
        assert.doesNotMatch(JSON.stringify(problem), /root:x?:0:0/, "/etc/passwd leaked");
      },
    });
    let laughs = `<!ENTITY lol0 "lollollollollollollollollollol">\n`;
    for (let i = 1; i <= 9; i++) {
      laughs += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">\n`;
    }
    const kilobytes = "x".repeat(100_000);
    await refuseEverywhere(service, [
      refused("billion laughs", xml(laughs, "&lol9;")),
      refused(
        "quadratic blow-up: one 100 kB entity used 20,000 times",
        (root) => xml(`<!ENTITY big "${kilobytes}">`, "&big;".repeat(20_000))(root),
      ),
      refused(
        "an external entity on file:///etc/passwd",
        xml(`<!ENTITY xxe SYSTEM "file:///etc/passwd">`, "&xxe;"),
      ),
      refused(
        "an external entity on a loopback URL",
        xml(`<!ENTITY xxe SYSTEM "${listener.url}entity">`, "&xxe;"),
      ),
      refused(
        "a PUBLIC external entity",
        xml(`<!ENTITY xxe PUBLIC "-//X//Y" "${listener.url}public">`, "&xxe;"),
      ),
      refused(
        "a parameter entity loading a remote DTD",
        xml(`<!ENTITY % remote SYSTEM "${listener.url}dtd"> %remote;`, "x"),
      ),
    ]);
    // An external DTD subset is not an entity declaration: the parser must not load it, and
    // the entity the document expects from it is then undefined.
    await refuseEverywhere(service, [{
      name: "an external DTD subset defining the entity used",
      contentType: "application/rdf+xml",
      body: (root) =>
        `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF SYSTEM "${listener.url}external.dtd">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:dct="http://purl.org/dc/terms/">
  <rdf:Description rdf:about="${root}"><dct:title>&fromDtd;</dct:title></rdf:Description>
</rdf:RDF>`,
      status: 400,
      slug: "rdf-syntax",
    }]);
    assert.equal(listener.connections(), 0, "the service connected to an external entity URL");
  } finally {
    listener.close();
  }
});

hostileTest("a GET hash with no body is a 400; so is one that is not UTF-8", async (service) => {
  const hashUrl = `${service.url}/api/item/hash?collection=${
    encodeURIComponent(service.collection)
  }`;
  const cases: [string, () => Promise<Response>, string][] = [
    [
      "GET with no body (raw socket, no Content-Length)",
      async () => rawToResponse(await rawRequest(hashUrl, { method: "GET" })),
      "empty-body",
    ],
    ["GET with no body (fetch)", () => fetch(hashUrl), "empty-body"],
    [
      "GET with Content-Length: 0",
      async () =>
        rawToResponse(
          await rawRequest(hashUrl, {
            method: "GET",
            headers: { "Content-Type": "application/ld+json", "Content-Length": "0" },
          }),
        ),
      "empty-body",
    ],
    [
      "POST with no body",
      () => fetch(hashUrl, { method: "POST", headers: { "Content-Type": "application/ld+json" } }),
      "empty-body",
    ],
    [
      "POST with bytes that are not UTF-8",
      () =>
        fetch(hashUrl, {
          method: "POST",
          headers: { "Content-Type": "application/ld+json" },
          body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        }),
      "invalid-encoding",
    ],
  ];
  for (const [name, send, slug] of cases) {
    await expectRefused(service, { send, status: 400, slug }).catch((error) => {
      throw new Error(`${name}: ${error.message}`, { cause: error });
    });
  }
  await assertStillWrites(service);
});

function itemJson(root: string): string {
  return JSON.stringify({ "@id": root, [TITLE]: "A hostile item" });
}

function withContext(root: string, context: string): string {
  return `{"@context": ${context}, "@id": "${root}", "${TITLE}": "x"}`;
}
