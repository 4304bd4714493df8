/**
 * Shapes generated from a dataset accept that dataset (issue 43): SHACL shapes generated
 * from SKOS by the service's own tool (`POST /api/admin/tools/generate-shacl`) are set on a
 * collection, and SKOS imported into it by subject is accepted whole, although `sh:class`
 * asks for the types of resources other items describe, some of them later in the file.
 */
import { strict as assert } from "node:assert";
import { DEMO_WORKSPACE, startTestService, storeBackends } from "../support/service.ts";

const SKOS = new URL("../fixtures/vocabularies/skos.nq", import.meta.url);
const JSON_TYPE = { "Content-Type": "application/json" };

interface ImportJob {
  state: string;
  items: number;
  written: number;
  refused: number;
  skipped: number;
  errors: { item: string | null; message: string }[];
}

for (const backend of storeBackends()) {
  Deno.test({
    name: `[shapes from data/${backend.name}] shapes generated from SKOS accept every SKOS item`,
    ignore: backend.skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const service = await startTestService({ env: backend.env });
      try {
        const form = new FormData();
        form.append("file", new Blob([await Deno.readFile(SKOS)]), "skos.nq");
        const generated = await service.fetch(
          `/api/admin/tools/generate-shacl?namespace=${
            encodeURIComponent("https://shapes.example.org/skos/")
          }`,
          { method: "POST", body: form },
        );
        assert.equal(generated.status, 200);
        const shapes = await generated.text();
        assert.match(shapes, /sh:class/, "the shapes constrain the classes of linked resources");

        const collection = `https://data.example.org/collection/skos-${crypto.randomUUID()}`;
        const made = await service.fetch("/api/admin/collections", {
          method: "POST",
          headers: JSON_TYPE,
          body: JSON.stringify({
            workspace: DEMO_WORKSPACE,
            uri: collection,
            shapesTurtle: shapes,
            index: { name: `skos-${crypto.randomUUID().slice(0, 8)}`, fields: [] },
          }),
        });
        assert.equal(made.status, 201, await made.text());

        const query = new URLSearchParams({
          collection,
          itemsBy: "subject",
          graphs: "ignore",
          wait: "true",
        });
        const imported = await service.fetch(`/api/admin/import?${query}`, {
          method: "POST",
          headers: { "Content-Type": "application/n-quads" },
          body: await Deno.readFile(SKOS),
        });
        const job = await imported.json() as ImportJob;
        assert.equal(job.state, "succeeded", JSON.stringify(job));
        assert.deepEqual(
          { items: job.items, written: job.written, refused: job.refused, skipped: job.skipped },
          { items: 33, written: 33, refused: 0, skipped: 0 },
          JSON.stringify(job.errors.slice(0, 3)),
        );
      } finally {
        await service.close();
      }
    },
  });
}
