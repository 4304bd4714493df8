/**
 * The tools page's webhook endpoint columns (src/ui/static/webhook-columns.js): the fields the
 * API answers, known ones in their order, fields the page does not know yet after them under a
 * heading made from their names, dead letters never a column.
 */
import { strict as assert } from "node:assert";
import { endpointColumns, headingOf } from "../../src/ui/static/webhook-columns.js";

const ENDPOINT = {
  collection: "https://c",
  url: "http://127.0.0.1:9/hook",
  position: "7",
  pending: 0,
  attempts: 2,
  failingSince: null,
  nextAttempt: null,
  last: null,
  deadLetters: [],
};

Deno.test("the known fields in their order, dead letters apart", () => {
  assert.deepEqual(endpointColumns([ENDPOINT]).map((column) => column.heading), [
    "Collection",
    "URL",
    "Position",
    "Pending",
    "Attempts",
    "Failing since",
    "Next attempt",
    "Last attempt",
  ]);
});

Deno.test("a field added to the API is shown after the known ones; a missing one is left out", () => {
  const { position: _, ...withoutPosition } = ENDPOINT;
  const leased = { holder: "instance-2", ...withoutPosition, leaseUntil: "2026-01-01T00:00:00Z" };
  const columns = endpointColumns([leased]);
  assert.deepEqual(columns.slice(-2), [
    { field: "holder", heading: "Holder" },
    { field: "leaseUntil", heading: "Lease until" },
  ]);
  assert.ok(!columns.some((column) => column.field === "position"));
  // One endpoint with a field is enough for the column: the others show it empty.
  assert.equal(endpointColumns([ENDPOINT, leased]).length, 10);
  assert.deepEqual(endpointColumns([]), []);
});

Deno.test("headings from field names", () => {
  assert.equal(headingOf("leaseUntil"), "Lease until");
  assert.equal(headingOf("holder"), "Holder");
  assert.equal(headingOf("retries2Done"), "Retries2 done");
});
