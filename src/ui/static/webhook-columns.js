/**
 * The columns of the tools page's webhook endpoints (tools-webhooks.js): the fields
 * `GET /api/admin/webhooks` answers, known ones first in a fixed order with their headings,
 * then any other field present under a heading made from its name, so a field added to the
 * API (such as a delivery lease's `holder` and `leaseUntil`) is shown, not dropped or fatal.
 * No DOM: unit-tested in Deno (tests/unit/webhook_columns_test.ts).
 */

/** Headings of the endpoint fields the page knows, in the order shown. */
const KNOWN = {
  collection: "Collection",
  url: "URL",
  position: "Position",
  pending: "Pending",
  attempts: "Attempts",
  failingSince: "Failing since",
  nextAttempt: "Next attempt",
  last: "Last attempt",
};

/** Listed apart, not as a column. */
const APART = new Set(["deadLetters"]);

/** `leaseUntil` → "Lease until": a heading for a field the page does not know. */
export function headingOf(field) {
  const words = field.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `[{field, heading}]` for the fields any of `endpoints` has. */
export function endpointColumns(endpoints) {
  const present = new Set(endpoints.flatMap((endpoint) => Object.keys(endpoint)));
  const fields = [
    ...Object.keys(KNOWN).filter((field) => present.has(field)),
    ...[...present].filter((field) => !Object.hasOwn(KNOWN, field) && !APART.has(field)),
  ];
  return fields.map((field) => ({ field, heading: KNOWN[field] ?? headingOf(field) }));
}
