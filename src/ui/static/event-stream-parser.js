/**
 * Server-Sent Events from text as it arrives, for pages that read an event stream with
 * `fetch` (event-stream.js): the fields `id`, `event`, `data` and `retry`, comments ignored,
 * lines ended by CRLF, LF or CR, as the HTML standard interprets an event stream. No DOM:
 * unit-tested in Deno (tests/unit/event_stream_parser_test.ts).
 */

/** Splits a stream's text into events, chunk by chunk, wherever the chunks are cut. */
export class EventStreamParser {
  #buffer = "";
  #started = false;
  #event = { data: [], type: "", id: undefined };

  /** The events `text` completes: `{id, event, data}` each; `retry` (ms) when one came. */
  push(text) {
    this.#buffer += text;
    if (!this.#started && this.#buffer.length > 0) {
      this.#started = true;
      if (this.#buffer.startsWith("\uFEFF")) this.#buffer = this.#buffer.slice(1);
    }
    const events = [];
    let retry;
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
      if (end < 0 || (end === this.#buffer.length - 1 && this.#buffer[end] === "\r")) break;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(this.#buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
      if (line === "") {
        if (this.#event.data.length > 0) {
          events.push({
            id: this.#event.id,
            event: this.#event.type || "message",
            data: this.#event.data.join("\n"),
          });
        }
        // An id holds until another is given: it is carried to the events after it.
        this.#event = { data: [], type: "", id: this.#event.id };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") this.#event.data.push(value);
      else if (field === "event") this.#event.type = value;
      else if (field === "id" && !value.includes("\0")) this.#event.id = value;
      else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    }
    return { events, retry };
  }
}
