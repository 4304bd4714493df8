/**
 * SHACL validation of item writes (docs/api.md, Items): a collection with `shapes` refuses
 * non-conforming creates and updates with 422 and the report's results, and writes nothing.
 * On both store backends. A shapes file that cannot be read stops start-up with the key.
 */
import { strict as assert } from "node:assert";
import { startTestService, storeBackends, type TestService } from "../support/service.ts";
import { STORE_YAML } from "../support/backends.ts";
import { expectProblem } from "../support/problems.ts";

const COLLECTION = "https://data.example.org/collection/validated";
const SHAPES = `@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <https://ex.example.org/> .

ex:BookShape a sh:NodeShape ;
  sh:targetClass ex:Book ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:datatype xsd:string ;
                sh:message "A book needs a plain title." ] ;
  sh:property [ sh:path ex:pages ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path ex:author ; sh:class ex:Person ] .
`;
const OTHER = "https://data.example.org/collection/unvalidated";

function yaml(shapesPath: string): string {
  return `
service:
  data:
    dir: \${SERVICE_DATA_DIR}
${STORE_YAML}workspaces:
  - uri: https://data.example.org/workspace/validated
    name: Validated
    collections:
      - uri: ${COLLECTION}
        name: Validated
        index: validated
        shapes: ${JSON.stringify(shapesPath)}
      - uri: ${OTHER}
        name: Unvalidated
        index: unvalidated
`;
}

function book(uri: string, extra: string): string {
  return `<${uri}> a <https://ex.example.org/Book> ;\n${extra} .\n`;
}

const query = (uri: string, collection = COLLECTION) =>
  `collection=${encodeURIComponent(collection)}&item=${encodeURIComponent(uri)}`;

/** A test on every store backend, with a service whose collection has SHAPES. */
function shapesTest(title: string, fn: (service: TestService) => Promise<void>): void {
  for (const backend of storeBackends()) {
    Deno.test({
      name: `[shapes/${backend.name}] ${title}`,
      ignore: backend.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const dir = await Deno.makeTempDir({ prefix: "rcs-shapes-" });
        await Deno.writeTextFile(`${dir}/shapes.ttl`, SHAPES);
        const service = await startTestService({
          yaml: yaml(`${dir}/shapes.ttl`),
          env: backend.env,
        });
        try {
          await fn(service);
        } finally {
          await service.close();
          await Deno.remove(dir, { recursive: true });
        }
      },
    });
  }
}

/** PUT a Turtle body as `uri` of `collection`. */
function putItem(service: TestService, uri: string, body: string, collection = COLLECTION) {
  return service.fetch(`/api/item?${query(uri, collection)}`, {
    method: "PUT",
    headers: { "Content-Type": "text/turtle" },
    body,
  });
}

shapesTest("writes are validated against the collection's shapes", async (service) => {
  const uri = `https://data.example.org/id/shapes/${crypto.randomUUID()}`;
  const put = (body: string) => putItem(service, uri, body);
  // No title, two page counts, one of them not an integer: three results.
  const refused = await expectProblem(
    await put(book(uri, `<https://ex.example.org/pages> "many", 12`)),
    422,
    "shacl-violation",
  );
  const errors = refused.errors as { path: string; message: string }[];
  assert.ok(
    errors.some((e) => e.message === "A book needs a plain title. (MinCountConstraintComponent)"),
  );
  assert.ok(errors.every((e) => e.path.startsWith(`<${uri}>`)), JSON.stringify(errors));
  assert.ok(errors.some((e) => /MaxCount/.test(e.message)), JSON.stringify(errors));
  assert.ok(errors.some((e) => /Datatype/.test(e.message)), JSON.stringify(errors));
  await expectProblem(await service.fetch(`/api/item?${query(uri)}`), 404, "item-not-found");

  const created = await put(book(uri, `<http://purl.org/dc/terms/title> "Dune"`));
  assert.equal(created.status, 201, await created.text());
  const etag = created.headers.get("etag");

  const update = await service.fetch(`/api/item?${query(uri)}`, {
    method: "POST",
    headers: { "Content-Type": "text/turtle" },
    body: book(uri, `<http://purl.org/dc/terms/title> "Dune"@en`),
  });
  const problem = await expectProblem(update, 422, "shacl-violation");
  assert.match(JSON.stringify(problem.errors), /dc\/terms\/title/);
  const read = await service.fetch(`/api/item?${query(uri)}`, {
    headers: { Accept: "application/n-triples" },
  });
  assert.equal(read.headers.get("etag"), etag, "a refused update changes nothing");
  assert.match(await read.text(), /"Dune" \./);
});

shapesTest("sh:class reads the linked resource's own item in the collection", async (service) => {
  const id = () => `https://data.example.org/id/shapes/${crypto.randomUUID()}`;
  const put = (uri: string, body: string, collection = COLLECTION) =>
    putItem(service, uri, body, collection);
  const person = (uri: string) => `<${uri}> a <https://ex.example.org/Person> .\n`;
  const byAuthor = (uri: string, author: string) =>
    book(
      uri,
      `<http://purl.org/dc/terms/title> "Dune" ; <https://ex.example.org/author> <${author}>`,
    );
  // The author's type is stated in the author's own item of the collection.
  const author = id();
  assert.equal((await put(author, person(author))).status, 201);
  const bookUri = id();
  const created = await put(bookUri, byAuthor(bookUri, author));
  assert.equal(created.status, 201, await created.text());

  // An author no item of the collection types (unknown, or in another collection only).
  const elsewhere = id();
  assert.equal((await put(elsewhere, person(elsewhere), OTHER)).status, 201);
  for (const missing of [id(), elsewhere]) {
    const uri = id();
    const refused = await expectProblem(
      await put(uri, byAuthor(uri, missing)),
      422,
      "shacl-violation",
    );
    const errors = refused.errors as { path: string; message: string }[];
    assert.deepEqual(errors.map((e) => /ClassConstraint/.test(e.message)), [true]);
    assert.equal(errors[0].path, `<${uri}> <https://ex.example.org/author>`);
  }
});

Deno.test("start-up stops with the key path when a shapes file cannot be read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rcs-shapes-" });
  try {
    await Deno.writeTextFile(`${dir}/customer.yml`, yaml(`${dir}/missing.ttl`));
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../../src/main.ts", import.meta.url).pathname],
      env: { CUSTOMER_YML: `${dir}/customer.yml`, SERVICE_DATA_DIR: dir },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(result.code, 2);
    assert.match(
      new TextDecoder().decode(result.stderr),
      /workspaces\[0\]\.collections\[0\]\.shapes: cannot read .*missing\.ttl/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
