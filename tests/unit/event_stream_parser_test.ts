/**
 * The workbench's reading of Server-Sent Events (src/ui/static/event-stream-parser.js), which
 * the collection page's live changes read with `fetch`: events whatever the chunks' cuts,
 * every line ending, comments skipped, multi-line data, ids carried, `retry`.
 */
import { strict as assert } from "node:assert";
import { EventStreamParser } from "../../src/ui/static/event-stream-parser.js";

/** What the change feed sends: a retry and a comment, then two changes. */
const FEED = "retry: 1000\n: changes of <https://c>\n\n" +
  'id: 7\nevent: change\ndata: {"cursor":"7"}\n\n' +
  ": keep-alive\n\n" +
  'id: 9\nevent: change\ndata: {"cursor":"9"}\n\n';

const EXPECTED = [
  { id: "7", event: "change", data: '{"cursor":"7"}' },
  { id: "9", event: "change", data: '{"cursor":"9"}' },
];

Deno.test("the feed's events, whole or cut anywhere, comments skipped", () => {
  const whole = new EventStreamParser().push(FEED);
  assert.deepEqual(whole, { events: EXPECTED, retry: 1000 });
  // Every cut into two chunks, and one character at a time: the same events.
  for (let cut = 0; cut <= FEED.length; cut++) {
    const parser = new EventStreamParser();
    const first = parser.push(FEED.slice(0, cut));
    const second = parser.push(FEED.slice(cut));
    assert.deepEqual([...first.events, ...second.events], EXPECTED, `cut at ${cut}`);
  }
  const parser = new EventStreamParser();
  const one = [...FEED].flatMap((character) => parser.push(character).events);
  assert.deepEqual(one, EXPECTED);
});

Deno.test("CRLF and CR end lines too, a CR at a chunk's end waits for its LF", () => {
  const crlf = FEED.replaceAll("\n", "\r\n");
  assert.deepEqual(new EventStreamParser().push(crlf).events, EXPECTED);
  // With CR alone, a CR ending the text may be half a CRLF: the last event comes with more.
  const cr = new EventStreamParser();
  assert.deepEqual(cr.push(FEED.replaceAll("\n", "\r")).events, EXPECTED.slice(0, 1));
  assert.deepEqual(cr.push(": keep-alive\r").events, EXPECTED.slice(1));
  const parser = new EventStreamParser();
  const split = crlf.indexOf("\r\n\r\n", 40) + 1; // between a CR and its LF
  const events = [
    ...parser.push(crlf.slice(0, split)).events,
    ...parser.push(crlf.slice(split)).events,
  ];
  assert.deepEqual(events, EXPECTED, "no empty line seen between CR and LF");
});

Deno.test("data lines join with newlines; one space after the colon goes; ids carry on", () => {
  const { events, retry } = new EventStreamParser().push(
    "\uFEFFid: 1\ndata:first\ndata:  second\n\n" + // BOM dropped; only one space removed
      "data: no id given\n\n" + // the last id holds
      "event: only\n\n" + // no data: nothing dispatched
      "retry: soon\ndata\n\n", // a retry that is not a number is ignored; `data` alone is ""
  );
  assert.equal(retry, undefined);
  assert.deepEqual(events, [
    { id: "1", event: "message", data: "first\n second" },
    { id: "1", event: "message", data: "no id given" },
    { id: "1", event: "message", data: "" },
  ]);
});
