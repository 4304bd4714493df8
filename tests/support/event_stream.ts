/**
 * A reader of Server-Sent Events from a streaming response, for the change feed's suites:
 * events in order, comments skipped, a bounded wait for each.
 */
import { strict as assert } from "node:assert";

/** One event: its fields as sent. */
export interface StreamEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads Server-Sent Events from a streaming response. */
export class EventReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  /** A read that lost a race with a timeout: the next call takes its chunk. */
  #pending?: Promise<ReadableStreamReadResult<string>>;

  constructor(response: Response) {
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event (comments skipped), or undefined when the stream ends; fails after the wait. */
  async next(timeoutMs = 10_000): Promise<StreamEvent | undefined> {
    const got = await this.within(timeoutMs);
    assert.notEqual(got, "timeout", "no event within the time allowed");
    return got as StreamEvent | undefined;
  }

  /** The next event, undefined when the stream ends, `timeout` when none came in time. */
  async within(timeoutMs: number): Promise<StreamEvent | undefined | "timeout"> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event: Record<string, string> = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          event[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (event.data !== undefined || event.event !== undefined) return event;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return "timeout";
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.#pending ??= this.#reader.read();
      const read = await Promise.race([
        this.#pending,
        new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), left)),
      ]);
      clearTimeout(timer);
      if (read === "timeout") return "timeout";
      this.#pending = undefined;
      const chunk = read as ReadableStreamReadResult<string>;
      if (chunk.done) return undefined;
      this.#buffer += chunk.value;
    }
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
