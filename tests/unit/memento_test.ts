/** Memento's pieces for items (`src/routes/memento.ts`): Accept-Datetime and the TimeMap. */
import { strict as assert } from "node:assert";
import { acceptDatetime, mementoHeaders, timeMap } from "../../src/routes/memento.ts";
import { isProblem } from "../../src/errors/domain_error.ts";
import type { ItemOperation, ItemVersion } from "../../src/store/item_history.ts";

const C = "https://data.example.org/collection/c";
const I = "https://data.example.org/id/i";
const Q = `collection=${encodeURIComponent(C)}&item=${encodeURIComponent(I)}`;

function version(n: number, time: string, operation: ItemOperation = "update"): ItemVersion {
  return {
    collection: C,
    uri: I,
    version: n,
    hash: operation === "delete" ? null : `h${n}`,
    tripleCount: operation === "delete" ? 0 : 1,
    time,
    principal: "local",
    operation,
  };
}

Deno.test("Accept-Datetime: an IMF-fixdate, taken as the end of its second; anything else is 400", () => {
  assert.equal(
    acceptDatetime("Tue, 20 Jun 2000 18:02:59 GMT").toISOString(),
    "2000-06-20T18:02:59.999Z",
  );
  for (const bad of ["2000-06-20T18:02:59Z", "yesterday", "Tue, 20 Jun 2000 18:02:59", ""]) {
    assert.throws(
      () => acceptDatetime(bad),
      (error) =>
        isProblem(error, "invalid-parameter") &&
        error.errors?.[0].path === "Accept-Datetime",
      bad,
    );
  }
});

Deno.test("a memento's headers: its datetime and the original, timemap and memento links", () => {
  const headers = mementoHeaders(version(2, "2026-01-02T03:04:05.678Z"));
  assert.equal(headers["Memento-Datetime"], "Fri, 02 Jan 2026 03:04:05 GMT");
  assert.equal(
    headers.Link,
    `</api/item?${Q}>; rel="original timegate", </api/item/history?${Q}>; rel="timemap"; ` +
      `type="application/link-format", </api/item?${Q}&version=2>; rel="memento"; ` +
      `datetime="Fri, 02 Jan 2026 03:04:05 GMT"`,
  );
});

Deno.test("the TimeMap leaves deletes out and marks first and last only on the pages that hold them", () => {
  const versions = [
    version(4, "2026-01-04T00:00:00.000Z", "delete"),
    version(3, "2026-01-03T00:00:00.000Z"),
    version(2, "2026-01-02T00:00:00.000Z"),
  ];
  const newest = timeMap(C, I, versions, {
    newest: true,
    oldest: false,
    self: "/self",
    next: "/older",
  });
  const lines = newest.trim().split(",\n");
  assert.deepEqual(lines, [
    `</api/item?${Q}>;rel="original"`,
    `</api/item?${Q}>;rel="timegate"`,
    `</self>;rel="self";type="application/link-format";from="Fri, 02 Jan 2026 00:00:00 GMT";` +
    `until="Sat, 03 Jan 2026 00:00:00 GMT"`,
    `</api/item?${Q}&version=3>;rel="last memento";datetime="Sat, 03 Jan 2026 00:00:00 GMT"`,
    `</api/item?${Q}&version=2>;rel="memento";datetime="Fri, 02 Jan 2026 00:00:00 GMT"`,
    `</older>;rel="next";type="application/link-format"`,
  ]);
  const oldest = timeMap(C, I, [version(1, "2026-01-01T00:00:00.000Z", "create")], {
    newest: false,
    oldest: true,
    self: "/older",
  });
  assert.match(oldest, /version=1>;rel="first memento";/);
  assert.doesNotMatch(oldest, /rel="next"/);
});
