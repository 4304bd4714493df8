/**
 * RDF fidelity over real HTTP, on every store backend: the `base` parameter on create,
 * update, initialise and hash; `relative-iri` without it, in every syntax; and downloads of
 * graphs RDF/XML cannot express answering 406 before the first byte, small items and large
 * (streamed) ones alike, never 500. The W3C suites themselves run in
 * tests/conformance/w3c_rdf_suites_test.ts.
 */
import { strict as assert } from "node:assert";
import {
  DEMO_COLLECTION,
  itemQuery,
  storeBackends,
  storeTest,
  type TestService,
  uniqueItemUri,
} from "../support/service.ts";
import { expectProblem } from "../support/problems.ts";

const C = encodeURIComponent(DEMO_COLLECTION);
const DCT = "http://purl.org/dc/terms/";

function send(
  service: TestService,
  method: string,
  path: string,
  body: string,
  type: string,
): Promise<Response> {
  return service.fetch(path, { method, headers: { "Content-Type": type }, body });
}

/** Relative-IRI bodies in each syntax create takes; `doc` is what they resolve to. */
function relativeBodies(doc: string) {
  const name = doc.slice(doc.lastIndexOf("/") + 1);
  return [
    { type: "text/turtle", body: `<${name}> <${DCT}title> "T" .` },
    { type: "text/n3", body: `<${name}> <${DCT}title> "T" .` },
    { type: "application/ld+json", body: JSON.stringify({ "@id": name, [`${DCT}title`]: "T" }) },
    {
      type: "application/rdf+xml",
      body: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns:dct="${DCT}"><rdf:Description rdf:about="${name}"><dct:title>T</dct:title>
  </rdf:Description></rdf:RDF>`,
    },
  ];
}

for (const backend of storeBackends({ allStores: true })) {
  const suite = (name: string, fn: (service: TestService) => Promise<void>) =>
    storeTest("rdf fidelity", backend, name, fn);
  if (backend.skip) console.log(`RDF fidelity suite on ${backend.name} skipped: ${backend.skip}`);

  suite(
    "relative IRIs: 400 relative-iri without base, resolved with it, in every syntax",
    async (service) => {
      for (const { type } of relativeBodies(uniqueItemUri())) {
        const doc = uniqueItemUri("relative");
        const { body } = relativeBodies(doc).find((entry) => entry.type === type)!;
        const refused = await expectProblem(
          await send(service, "PUT", `/api/item?collection=${C}`, body, type),
          400,
          "relative-iri",
        );
        assert.match(String(refused.detail), /`base` query parameter/, type);
        assert.equal(refused.iri, doc.slice(doc.lastIndexOf("/") + 1), type);
        const read = await service.fetch(`/api/item?${itemQuery(doc)}`);
        await expectProblem(read, 404, "item-not-found");

        const base = encodeURIComponent(doc);
        const created = await send(
          service,
          "PUT",
          `/api/item?collection=${C}&base=${base}`,
          body,
          type,
        );
        assert.equal(created.status, 201, `${type}: ${await created.clone().text()}`);
        assert.deepEqual(await created.json(), { uri: doc });
        const updated = await send(
          service,
          "POST",
          `/api/item?${itemQuery(doc)}&base=${base}`,
          body.replaceAll('"T"', '"U"').replaceAll(">T<", ">U<"),
          type,
        );
        assert.equal(updated.status, 204, `${type}: ${await updated.text()}`);
        const nt = await service.fetch(`/api/item.nt?${itemQuery(doc)}`);
        assert.equal(await nt.text(), `<${doc}> <${DCT}title> "U" .\n`, type);
      }
      await expectProblem(
        await send(
          service,
          "PUT",
          `/api/item?collection=${C}&base=relative/`,
          "<a> <b> <c> .",
          "text/turtle",
        ),
        400,
        "invalid-iri",
      );
    },
  );

  suite("hash and initialise take base too", async (service) => {
    const doc = uniqueItemUri("hashed");
    const relative = JSON.stringify({
      "@id": doc.slice(doc.lastIndexOf("/") + 1),
      [`${DCT}title`]: "T",
    });
    const absolute = JSON.stringify({ "@id": doc, [`${DCT}title`]: "T" });
    const hashPath = `/api/item/hash?collection=${C}`;
    await expectProblem(
      await send(service, "POST", hashPath, relative, "application/ld+json"),
      400,
      "relative-iri",
    );
    const withBase = await send(
      service,
      "POST",
      `${hashPath}&base=${encodeURIComponent(doc)}`,
      relative,
      "application/ld+json",
    );
    const plain = await send(service, "POST", hashPath, absolute, "application/ld+json");
    assert.equal(withBase.status, 200);
    assert.equal((await withBase.json()).hash, (await plain.json()).hash);

    const initPath = `/api/item/initialize?collection=${C}&uri=${encodeURIComponent(doc)}`;
    await expectProblem(
      await send(service, "POST", initPath, relative, "application/ld+json"),
      400,
      "relative-iri",
    );
    const initialised = await send(
      service,
      "POST",
      `${initPath}&base=${encodeURIComponent(doc)}`,
      relative,
      "application/ld+json",
    );
    assert.equal(initialised.status, 200);
    assert.ok(JSON.stringify(await initialised.json()).includes(doc));
  });

  suite("graphs RDF/XML cannot carry: 406 naming the term, other formats fine", async (service) => {
    const control = uniqueItemUri("control");
    const predicate = uniqueItemUri("predicate");
    const bodies = [
      { uri: control, body: `<${control}> <${DCT}title> "bell\\u0007" .`, term: /bell\\u0007/ },
      { uri: predicate, body: `<${predicate}> <urn:u:> "x" .`, term: /<urn:u:>/ },
    ];
    for (const { uri, body, term } of bodies) {
      const created = await send(service, "PUT", `/api/item?collection=${C}`, body, "text/turtle");
      assert.equal(created.status, 201, await created.text());
      const refused = await expectProblem(
        await service.fetch(`/api/item.rdf?${itemQuery(uri)}`),
        406,
        "not-expressible",
      );
      assert.match(String(refused.term), term);
      assert.ok((refused.alternatives as string[]).includes("text/turtle"));
      await expectProblem(
        await service.fetch(`/api/item?${itemQuery(uri)}`, {
          headers: { Accept: "application/rdf+xml" },
        }),
        406,
        "not-expressible",
      );
      for (const extension of ["ttl", "nt", "n3", "jsonld"]) {
        const download = await service.fetch(`/api/item.${extension}?${itemQuery(uri)}`);
        assert.equal(download.status, 200, extension);
        await download.body?.cancel();
      }
    }
  });

  suite(
    "a large item (streamed) RDF/XML cannot carry is 406 before the first byte",
    async (service) => {
      const uri = uniqueItemUri("large");
      const lines = [`<${uri}> <${DCT}title> "Large" .`];
      // More triples than are answered in one piece; the bad one comes last.
      for (let i = 0; i < 2_500; i++) lines.push(`<${uri}> <${DCT}hasPart> <${uri}/part/${i}> .`);
      lines.push(`<${uri}> <http://example.org/vocab/@> "no XML name" .`);
      const created = await send(
        service,
        "PUT",
        `/api/item?collection=${C}`,
        lines.join("\n"),
        "text/turtle",
      );
      assert.equal(created.status, 201, await created.text());
      const refused = await expectProblem(
        await service.fetch(`/api/item.rdf?${itemQuery(uri)}`),
        406,
        "not-expressible",
      );
      assert.equal(refused.term, "<http://example.org/vocab/@>");
      const turtle = await service.fetch(`/api/item.ttl?${itemQuery(uri)}`);
      assert.equal(turtle.status, 200);
      assert.match(await turtle.text(), /no XML name/);

      // A large item RDF/XML can carry still streams.
      const fine = uniqueItemUri("large-fine");
      const fineBody = lines.slice(0, -1).join("\n").replaceAll(uri, fine);
      assert.equal(
        (await send(service, "PUT", `/api/item?collection=${C}`, fineBody, "text/turtle")).status,
        201,
      );
      const rdfxml = await service.fetch(`/api/item.rdf?${itemQuery(fine)}`);
      assert.equal(rdfxml.status, 200);
      assert.equal((await rdfxml.text()).split("hasPart").length - 1, 2_500);
    },
  );
}
