/**
 * The workbench's scripts keep no list of RDF formats: the pages carry the format table's
 * downloads and import files as data attributes (src/ui/format_lists.ts).
 */
import { strict as assert } from "node:assert";
import { PAGES } from "../../src/ui/pages.ts";
import { renderPage } from "../../src/ui/layout.ts";
import {
  DOWNLOAD_CHOICES,
  IMPORT_CHOICES,
  importFileHint,
  jsonAttribute,
} from "../../src/ui/format_lists.ts";
import { DOWNLOAD_FORMATS } from "../../src/routes/media_types.ts";
import { RDF_FORMATS } from "../../src/rdf/format_table.ts";

/** The JSON of `data-formats` on the element with `id` in a rendered page. */
function dataFormats(html: string, id: string): unknown {
  const match = new RegExp(`id="${id}"[^>]*data-formats="([^"]*)"`).exec(html);
  assert.ok(match, `#${id} has no data-formats`);
  const text = match[1].replaceAll("&quot;", '"').replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return JSON.parse(text);
}

Deno.test("the item page carries every download of the format table, as its route names it", () => {
  const html = renderPage("/ui/item", PAGES.item, { tokens: false });
  assert.deepEqual(dataFormats(html, "downloads"), DOWNLOAD_CHOICES);
  assert.deepEqual(
    DOWNLOAD_CHOICES,
    Object.entries(DOWNLOAD_FORMATS).map(([extension, format]) => ({
      extension,
      label: RDF_FORMATS[format].label,
    })),
  );
});

Deno.test("the collection page's import form carries the importable files", () => {
  const html = renderPage("/ui/collection", PAGES.collection, { tokens: false });
  assert.deepEqual(dataFormats(html, "import-file"), IMPORT_CHOICES);
  assert.deepEqual(IMPORT_CHOICES.map((choice) => [choice.extensions, choice.graphs]), [
    [["nq"], true],
    [["trig"], true],
    [["ttl"], false],
    [["nt"], false],
    [["rdf", "owl", "xml"], false],
    [["jsonld", "json"], false],
  ]);
  assert.ok(html.includes(`RDF file ${importFileHint()}`));
  assert.equal(importFileHint(), "(.nq, .trig; by subject also .ttl, .nt, .rdf, .jsonld)");
});

Deno.test("a value in a data attribute cannot close the attribute or open a tag", () => {
  const text = jsonAttribute({ label: `"><script>&` });
  assert.doesNotMatch(text, /["<>]/);
  assert.equal(text, "{&quot;label&quot;:&quot;\\&quot;&gt;&lt;script&gt;&amp;&quot;}");
});
