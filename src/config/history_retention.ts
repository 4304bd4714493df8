/**
 * How long item history is kept (issue 41): `service.history.retention`, the service's default,
 * and `workspaces[].collections[].history.retention`, a collection's own. One setting, one
 * syntax, read here only:
 *
 * - `all`: every version is kept (the default);
 * - `last:N` (N ≥ 1): each item's N newest versions;
 * - an ISO 8601 duration (`P90D`, `P1Y6M`, `PT12H`, `P2W`): the versions written within it.
 *
 * Whatever the setting, pruning never removes an item's newest version (`items/history_prune_jobs.ts`).
 * The configuration keeps the text as written (what the settings dump and the collections
 * API show); {@link parseRetention} reads it.
 */
import { z } from "zod";

/** A retention, read. */
export type Retention =
  | { keep: "all" }
  | { keep: "last"; count: number }
  | { keep: "within"; duration: IsoDuration };

/** An ISO 8601 duration's parts (integers; weeks are kept as days). */
export interface IsoDuration {
  years: number;
  months: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** The default: history kept for good. */
export const KEEP_ALL = "all";

/** What the syntax is, for error messages and docs. */
export const RETENTION_SYNTAX = "`all`, `last:N` (N ≥ 1) or an ISO 8601 duration such as " +
  "`P90D`, `P1Y`, `PT12H`";

const LAST = /^last:(\d+)$/;
const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Reads a retention, or says in one line what is wrong with it. */
export function parseRetention(text: string): Retention | { error: string } {
  const value = text.trim();
  if (value === KEEP_ALL) return { keep: "all" };
  const last = LAST.exec(value);
  if (last) {
    const count = Number(last[1]);
    if (!Number.isSafeInteger(count) || count < 1) {
      return { error: `last:N keeps N ≥ 1 versions, not ${last[1]}` };
    }
    return { keep: "last", count };
  }
  const parts = DURATION.exec(value);
  // "P" and "PT" alone match the pattern with no part at all.
  if (parts && parts.slice(1).some((part) => part !== undefined) && !value.endsWith("T")) {
    const [years, months, weeks, days, hours, minutes, seconds] = parts.slice(1).map((part) =>
      Number(part ?? 0)
    );
    const duration = { years, months, days: days + 7 * weeks, hours, minutes, seconds };
    if (Object.values(duration).every((part) => part === 0)) {
      return { error: "a duration of zero would keep nothing but each item's newest version" };
    }
    return { keep: "within", duration };
  }
  return { error: `expected ${RETENTION_SYNTAX.replaceAll("`", "")}, not ${JSON.stringify(text)}` };
}

/** The schema of a retention setting: the text, checked. */
export const retentionSetting = z.string().superRefine((text, ctx) => {
  const read = parseRetention(text);
  if ("error" in read) ctx.addIssue({ code: "custom", message: read.error });
});

/** A retention the schema has checked (the configuration's or a collection's), read. */
export function checkedRetention(text: string): Retention {
  const read = parseRetention(text);
  if ("error" in read) throw new Error(`unchecked retention: ${read.error}`);
  return read;
}

/**
 * The oldest instant a `within` retention keeps, `duration` before `now`: years and months
 * by the calendar (UTC), the rest by the clock.
 */
export function cutoffOf(duration: IsoDuration, now: Date): Date {
  const cutoff = new Date(now.getTime());
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - duration.years);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - duration.months);
  const ms = (((duration.days * 24 + duration.hours) * 60 + duration.minutes) * 60 +
    duration.seconds) * 1000;
  return new Date(cutoff.getTime() - ms);
}
