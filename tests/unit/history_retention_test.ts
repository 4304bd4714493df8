/**
 * The history retention setting (`src/config/history_retention.ts`): its syntax, the
 * instant a duration keeps from, and the configuration refusing a bad value by its key, from
 * customer.yml and from the environment variable the shipped file wires to it.
 */
import { strict as assert } from "node:assert";
import { ConfigError, parseConfigText } from "../../src/config/load.ts";
import { BUILT_IN_CUSTOMER_YML } from "../../src/config/defaults.ts";
import { cutoffOf, parseRetention } from "../../src/config/history_retention.ts";

const envOf = (values: Record<string, string>) => (name: string) => values[name];

Deno.test("retention: all, last:N and ISO 8601 durations are read; anything else says why", () => {
  assert.deepEqual(parseRetention("all"), { keep: "all" });
  assert.deepEqual(parseRetention("last:3"), { keep: "last", count: 3 });
  assert.deepEqual(parseRetention("P90D"), {
    keep: "within",
    duration: { years: 0, months: 0, days: 90, hours: 0, minutes: 0, seconds: 0 },
  });
  assert.deepEqual(parseRetention("P1Y2M3W4DT5H6M7S"), {
    keep: "within",
    duration: { years: 1, months: 2, days: 25, hours: 5, minutes: 6, seconds: 7 },
  });
  for (
    const bad of ["", "last:0", "last:", "last:-1", "P", "PT", "P1DT", "P0D", "90 days", "p1d"]
  ) {
    const read = parseRetention(bad);
    assert.ok("error" in read, `${JSON.stringify(bad)} is refused`);
  }
});

Deno.test("a duration's cutoff: years and months by the calendar, the rest by the clock", () => {
  const now = new Date("2026-03-31T12:00:00Z");
  const read = (text: string) => {
    const retention = parseRetention(text);
    assert.ok("keep" in retention && retention.keep === "within");
    return cutoffOf(retention.duration, now).toISOString();
  };
  assert.equal(read("P1D"), "2026-03-30T12:00:00.000Z");
  assert.equal(read("PT12H30M"), "2026-03-30T23:30:00.000Z");
  assert.equal(read("P1Y"), "2025-03-31T12:00:00.000Z");
  assert.equal(read("P2W"), "2026-03-17T12:00:00.000Z");
});

Deno.test("service.history.retention defaults to all, comes from its variable, and a bad one names the key", () => {
  assert.equal(
    parseConfigText(BUILT_IN_CUSTOMER_YML, "test", envOf({})).service.history.retention,
    "all",
  );
  const set = parseConfigText(
    BUILT_IN_CUSTOMER_YML,
    "test",
    envOf({ SERVICE_HISTORY_RETENTION: "last:5" }),
  );
  assert.equal(set.service.history.retention, "last:5");
  assert.throws(
    () =>
      parseConfigText(
        BUILT_IN_CUSTOMER_YML,
        "test",
        envOf({ SERVICE_HISTORY_RETENTION: "90 days" }),
      ),
    (error: unknown) =>
      error instanceof ConfigError && error.message.includes("service.history.retention") &&
      error.message.includes("90 days"),
  );
  const collection = BUILT_IN_CUSTOMER_YML.replace(
    "        index: documents\n",
    "        index: documents\n        history:\n          retention: last:0\n",
  );
  assert.throws(
    () => parseConfigText(collection, "test", envOf({})),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes("workspaces.0.collections.0.history.retention"),
  );
});
