/**
 * Structured logging: one JSON object per line, so operators can ship logs as they are.
 *
 * The sink is replaceable (tests capture lines; `LOG_LEVEL=warn` quietens the service).
 */

/** Severity, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Receives each formatted line. */
export type LogSink = (line: string, level: LogLevel) => void;

const encoder = new TextEncoder();

const defaultSink: LogSink = (line, level) => {
  const bytes = encoder.encode(line + "\n");
  if (level === "warn" || level === "error") Deno.stderr.writeSync(bytes);
  else Deno.stdout.writeSync(bytes);
};

let sink: LogSink = defaultSink;
let threshold: LogLevel = readLevel();

function readLevel(): LogLevel {
  try {
    const value = Deno.env.get("LOG_LEVEL");
    return value && value in ORDER ? value as LogLevel : "info";
  } catch {
    return "info";
  }
}

/** Writes one log line with `msg` and any extra fields. */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < ORDER[threshold]) return;
  sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }), level);
}

/** Replaces the sink (and optionally the level); returns a function restoring the old ones. */
export function setLogSink(next: LogSink, level: LogLevel = threshold): () => void {
  const previous = { sink, threshold };
  sink = next;
  threshold = level;
  return () => {
    sink = previous.sink;
    threshold = previous.threshold;
  };
}
