/**
 * Following a Server-Sent Events stream of this service with the tab's bearer token.
 * EventSource cannot send `Authorization`, so the stream is read with `fetch` and parsed
 * by event-stream-parser.js. A dropped connection is opened again after a short, growing
 * wait, with `Last-Event-ID`, so nothing is missed and nothing repeated; an answer that will
 * not change by trying again (a 4xx) stops it.
 */
import { authHeaders, ensureOk } from "./workbench.js";
import { EventStreamParser } from "./event-stream-parser.js";

/** The longest wait between two reconnections. */
const MAX_RETRY_MS = 15_000;

/**
 * Follows the event stream at `path` until `stop()`: `onEvent({id, event, data})` for each
 * event, `onState(state, detail)` as the connection goes (`connecting`, `live`,
 * `reconnecting` with the wait in ms, `restarted` when the position resumed from was no
 * longer kept (410) and the stream starts again without it, `stopped` with the error that
 * ended it).
 * `lastEventId` resumes after an event already seen.
 */
export function followEventStream(path, { onEvent, onState, lastEventId } = {}) {
  let stopped = false;
  let controller;
  let timer;
  let retryMs = 1000;
  let wait = retryMs;
  const state = (name, detail) => onState?.(name, detail);

  async function connect() {
    if (stopped) return;
    controller = new AbortController();
    state("connecting");
    try {
      const headers = { Accept: "text/event-stream", ...authHeaders() };
      if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
      const response = await fetch(path, { headers, signal: controller.signal });
      await ensureOk(response);
      state("live");
      wait = retryMs;
      const parser = new EventStreamParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { events, retry } = parser.push(value);
        if (retry !== undefined) wait = retryMs = retry;
        for (const event of events) {
          if (event.id !== undefined) lastEventId = event.id;
          onEvent?.(event);
        }
      }
    } catch (error) {
      if (stopped) return;
      if (error?.status === 410 && lastEventId !== undefined) {
        // The position is no longer kept: start again where the URL says, at once.
        lastEventId = undefined;
        state("restarted", error);
        timer = setTimeout(connect, 0);
        return;
      }
      // A refusal (no right, no such collection, no feed) stays one: say it and stop.
      if (error?.status >= 400 && error.status < 500 && error.status !== 408) {
        stopped = true;
        state("stopped", error);
        return;
      }
    }
    if (stopped) return;
    // The stream ended or broke: again after a wait that grows while it keeps failing.
    state("reconnecting", wait);
    timer = setTimeout(connect, wait);
    wait = Math.min(wait * 2, MAX_RETRY_MS);
  }

  connect();
  return {
    /** Closes the connection; no reconnection follows. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
    },
    /** The id of the last event seen, to resume from. */
    get lastEventId() {
      return lastEventId;
    },
  };
}
