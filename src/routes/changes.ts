/**
 * `GET /api/changes` (docs/api.md, Change feed): a collection's committed item writes as JSON
 * pages, or live as Server-Sent Events. The feed is the store's (`store/change_feed.ts`).
 *
 * The event stream is pulled: a page of changes is read only when the connection has taken
 * the one before (the HTTP layer waits for the socket to drain), so a slow client holds at
 * most one page in memory and falls behind by cursor instead of by buffer. Idle, it waits for
 * a commit (the feed's subscription) and sends a comment every {@link KEEP_ALIVE_MS}.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/app_env.ts";
import type { AppDeps } from "./app_deps.ts";
import { readQuery } from "../http/read_query.ts";
import { handle } from "../http/route_contract.ts";
import { negotiateMediaType } from "../rdf/formats.ts";
import { DomainError } from "../errors/domain_error.ts";
import { problemOf } from "../http/problem.ts";
import type { ChangeFeed, ItemChange } from "../store/change_feed.ts";
import { changeFeed, MAX_CHANGES_PER_PAGE } from "./contracts/changes.ts";

const JSON_TYPE = "application/json";
const EVENT_STREAM = "text/event-stream";
/** A comment this often keeps idle connections (and the proxies between) open. */
export const KEEP_ALIVE_MS = 15_000;
/** What a client waits before reconnecting after the stream ends (the `retry` field). */
const RETRY_MS = 1000;

/** The change feed route. */
export function changeRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  handle(app, changeFeed, async (c) => {
    const { collection, after, limit, tail } = readQuery(c, changeFeed);
    deps.catalog.require(collection);
    checkCount("limit", limit);
    if (tail !== undefined) {
      checkCount("tail", tail);
      if (after !== undefined) {
        throw new DomainError("invalid-parameter", {
          detail: "tail starts before the newest changes, after at a cursor: give one of them.",
          errors: [{ path: "tail", message: "not with after" }],
        });
      }
    }
    const feed = deps.store.changes;
    if (!feed) {
      throw new DomainError("changes-unsupported", {
        detail: `The ${deps.store.kind} store keeps no change feed.`,
      });
    }
    const type = negotiateMediaType(
      c.req.header("accept"),
      [[JSON_TYPE, [JSON_TYPE]], [EVENT_STREAM, [EVENT_STREAM]]] as const,
      JSON_TYPE,
    );
    if (!type) {
      throw new DomainError("not-acceptable", {
        detail: `The change feed is available as ${JSON_TYPE} or ${EVENT_STREAM}.`,
      });
    }
    // A tail's start is a cursor only the store can compute (cursors are opaque).
    const start = (resume: string | undefined) =>
      resume ?? (tail === undefined ? undefined : feed.beforeNewest(collection, tail));
    if (type === JSON_TYPE) {
      const page = await feed.read(collection, await start(after), limit);
      c.header("Vary", "Accept");
      return c.json({ collection, changes: page.changes, next: page.next });
    }
    // A reconnecting client's Last-Event-ID wins over `tail`: it resumes, never repeats.
    const from = await start(after ?? c.req.header("last-event-id") ?? undefined);
    // The first read answers a bad or expired cursor as a plain problem, before the stream.
    const first = await feed.read(collection, from, limit);
    return c.body(eventStream(feed, collection, first.changes, first.next, limit), 200, {
      "Content-Type": `${EVENT_STREAM}; charset=utf-8`,
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no", // nginx: pass events on as they come
      Vary: "Accept",
    });
  });

  return app;
}

/** `limit` and `tail`: 1 to {@link MAX_CHANGES_PER_PAGE}, else `invalid-parameter` naming it. */
function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > MAX_CHANGES_PER_PAGE) {
    throw new DomainError("invalid-parameter", {
      detail: `${name} must be an integer from 1 to ${MAX_CHANGES_PER_PAGE}.`,
      errors: [{ path: name, message: `out of range: ${value}` }],
    });
  }
}

const encoder = new TextEncoder();

/** One change as an event: its cursor the event's id. */
function changeEvent(change: ItemChange): string {
  return `id: ${change.cursor}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;
}

/**
 * The stream of `collection`'s changes: `first` (already read), then every change after
 * `cursor` as it commits. Ends with an `error` event if the client falls so far behind that
 * its cursor expires.
 */
function eventStream(
  feed: ChangeFeed,
  collection: string,
  first: ItemChange[],
  cursor: string,
  limit: number,
): ReadableStream<Uint8Array> {
  /** A commit happened since the last read: read again before waiting. */
  let dirty = false;
  let wake: (() => void) | undefined;
  const unsubscribe = feed.subscribe(() => {
    dirty = true;
    wake?.();
  });
  let pending = first;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n: changes of <${collection}>\n\n`));
    },
    async pull(controller) {
      for (;;) {
        if (pending.length > 0) {
          controller.enqueue(encoder.encode(pending.map(changeEvent).join("")));
          pending = [];
          return;
        }
        dirty = false;
        try {
          const page = await feed.read(collection, cursor, limit);
          cursor = page.next;
          pending = page.changes;
        } catch (error) {
          const problem = problemOf(error)?.toBody() ??
            { title: "Change feed read failed", status: 500 };
          controller.enqueue(
            encoder.encode(`event: error\ndata: ${JSON.stringify(problem)}\n\n`),
          );
          unsubscribe();
          controller.close();
          return;
        }
        if (pending.length > 0 || dirty) continue;
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), KEEP_ALIVE_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = undefined;
        if (!woken) {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
          return;
        }
      }
    },
    cancel() {
      unsubscribe();
      wake?.();
    },
  }, { highWaterMark: 1 });
}
