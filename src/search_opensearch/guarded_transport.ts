/**
 * The OpenSearch client's transport with a client-side timeout per kind of request and
 * fail-fast ({@link CircuitBreaker}): every call the client makes passes here.
 *
 * Client-side, because OpenSearch's own `timeout` parameters are applied by the server: a
 * frozen node (SIGSTOP, a long GC pause) never applies them, and the request waits on.
 * A subclass given to the client as its `Transport` (a documented client option), so that
 * no call can go around it.
 */
import { errors, Transport } from "@opensearch-project/opensearch";
import type { CircuitBreaker } from "../backend/circuit_breaker.ts";

/** `service.search.opensearch.timeouts`. */
export interface OpenSearchTimeouts {
  searchMs: number;
  bulkMs: number;
  adminMs: number;
}

type RequestParams = Parameters<Transport["request"]>[0];
type RequestOptions = NonNullable<Parameters<Transport["request"]>[1]>;
type Callback = (error: unknown, result: unknown) => void;

/** Request options that mark the breaker's probe (it must not be refused). */
export const PROBE_OPTIONS = { context: { breakerProbe: true } };

/** Which timeout a request gets, by its path. */
export function timeoutFor(path: string, timeouts: OpenSearchTimeouts): number {
  if (/\/_bulk$/.test(path)) return timeouts.bulkMs;
  if (/\/_search$/.test(path)) return timeouts.searchMs;
  return timeouts.adminMs;
}

/** Whether a failed call means the engine did not answer (it did, when it sent a status). */
export function isUnanswered(error: unknown): boolean {
  return error instanceof errors.ConnectionError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.TimeoutError;
}

/** A Transport class bound to these timeouts and this breaker. */
export function guardedTransport(
  timeouts: OpenSearchTimeouts,
  breaker: CircuitBreaker,
): typeof Transport {
  return class GuardedTransport extends Transport {
    // deno-lint-ignore no-explicit-any
    override request(params: RequestParams, options?: any, callback?: any): any {
      if (typeof options === "function") {
        callback = options;
        options = undefined;
      }
      const given = (options ?? {}) as RequestOptions;
      const guarded: RequestOptions = {
        ...given,
        // A caller's own (shorter, deadline-bound) timeout wins.
        requestTimeout: given.requestTimeout ?? timeoutFor(params.path, timeouts),
      };
      // The breaker's own probe goes around it.
      const isProbe = (given.context as { breakerProbe?: boolean } | undefined)?.breakerProbe;
      const refusal = isProbe ? undefined : breaker.refusal();
      const account = (error: unknown) => {
        if (!error) breaker.answered();
        else if (isUnanswered(error)) {
          breaker.unanswered(error instanceof Error ? error.message : String(error));
        } else if (error instanceof errors.ResponseError) breaker.answered();
      };
      if (callback) {
        if (refusal) {
          queueMicrotask(() => (callback as Callback)(refusal, undefined));
          return { abort() {} };
        }
        return super.request(params, guarded, (error: unknown, result: unknown) => {
          account(error);
          (callback as Callback)(error, result);
        });
      }
      if (refusal) {
        const refused = Promise.reject(refusal) as Promise<never> & { abort(): void };
        refused.abort = () => {};
        return refused;
      }
      const pending = super.request(params, guarded);
      pending.then(() => account(undefined), account);
      return pending;
    }
  };
}
