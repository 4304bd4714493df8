/**
 * Document writes to OpenSearch through the bulk API: each document or delete as its bulk
 * lines (one pair or line per target index), cut into bounded batches, sent with backoff
 * while the engine is overloaded or failing, and answered per document.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { Client } from "@opensearch-project/opensearch";
import { DomainError } from "../errors/domain_error.ts";
import { documentVersion } from "../search/document_version.ts";
import type {
  BulkFailure,
  BulkResult,
  SearchDocument,
  WriteOptions,
} from "../search/search_engine.ts";
import type { WriteTarget } from "./index_aliases.ts";
import { isRetryable, isRetryableItemFailure, itemMessage } from "./opensearch_errors.ts";
import { physicalDocument } from "./physical_fields.ts";

/** How bulk writes are cut and retried. */
export interface BulkPolicy {
  /** Most documents per bulk request. */
  maxDocuments: number;
  /** Most bytes of documents per bulk request. */
  maxBytes: number;
  /** Attempts per batch when the engine answers 429 or 5xx or cannot be reached. */
  maxAttempts: number;
  /** First backoff; doubles per attempt up to `maxBackoffMs`. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

/** The default {@link BulkPolicy}. */
export const DEFAULT_BULK_POLICY: BulkPolicy = {
  maxDocuments: 500,
  maxBytes: 5 * 1024 * 1024,
  maxAttempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5000,
};

/** OpenSearch refuses longer `_id`s. */
const MAX_ID_BYTES = 512;

/** Bulk lines go pre-serialised; the client passes strings through as NDJSON lines. */
type BulkBody = Parameters<Client["bulk"]>[0]["body"];

/** One document's or delete's bulk lines, for every target index. */
export interface BulkOperation {
  uri: string;
  lines: string[];
  bytes: number;
  isDelete: boolean;
}

/** The `_id` of an item's document: its URI, or a SHA-256 of it when too long for OpenSearch. */
export function documentId(uri: string): string {
  return Buffer.byteLength(uri) <= MAX_ID_BYTES
    ? uri
    : `sha256:${createHash("sha256").update(uri).digest("hex")}`;
}

/**
 * Index operations of `documents` into `indices`, each in the index's physical layout
 * (`physical_fields.ts`); a document without a URI fails alone.
 */
export function upsertOperations(
  documents: SearchDocument[],
  indices: WriteTarget[],
): { operations: BulkOperation[]; failed: BulkFailure[] } {
  const failed: BulkFailure[] = [];
  const operations: BulkOperation[] = [];
  for (const document of documents) {
    if (typeof document?.uri !== "string" || document.uri === "") {
      failed.push({
        uri: String(document?.uri ?? ""),
        kind: "invalid-input",
        message: "the document has no uri",
        retryable: false,
      });
      continue;
    }
    const source = JSON.stringify(physicalDocument(document));
    const version = documentVersion(document);
    const lines = indices.flatMap(({ name, alias }) => [
      JSON.stringify({
        index: {
          _index: name,
          _id: documentId(document.uri),
          ...(alias ? { require_alias: true } : {}),
          // An older state of the item never replaces a newer one (document_version.ts).
          ...(version === undefined ? {} : { version, version_type: "external_gte" }),
        },
      }),
      source,
    ]);
    operations.push({
      uri: document.uri,
      lines,
      bytes: Buffer.byteLength(source) * indices.length,
      isDelete: false,
    });
  }
  return { operations, failed };
}

/** Delete operations of `uris` in `indices`. */
export function deleteOperations(uris: string[], indices: WriteTarget[]): BulkOperation[] {
  // Versioned as of now: a delete that arrives late loses to a document written after it.
  const version = Date.now();
  return uris.map((uri): BulkOperation => {
    const lines = indices.map(({ name }) =>
      JSON.stringify({
        delete: { _index: name, _id: documentId(uri), version, version_type: "external_gte" },
      })
    );
    return { uri, lines, bytes: lines.join("").length, isDelete: true };
  });
}

/** What a {@link BulkWriter} needs besides the client and its policy. */
export interface BulkWriterOptions {
  /** The client's timeout of a bulk request (a write's deadline may shorten it). */
  requestTimeoutMs: number;
  /** The client's errors as the problems to answer. */
  problem: (error: unknown) => DomainError;
  /** A document failed in a way that may pass later (the alias may be gone: look again). */
  onRetryableFailure: () => void;
}

/** Sends bulk operations in bounded, retried batches. */
export class BulkWriter {
  readonly #client: Client;
  readonly #policy: BulkPolicy;
  readonly #options: BulkWriterOptions;

  constructor(client: Client, policy: BulkPolicy, options: BulkWriterOptions) {
    this.#client = client;
    this.#policy = policy;
    this.#options = options;
  }

  /** Sends `operations` in batches of the policy's bounds; failures are reported per document. */
  async run(operations: BulkOperation[], options: WriteOptions): Promise<BulkResult> {
    const result: BulkResult = { succeeded: 0, failed: [] };
    let batch: BulkOperation[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const outcome = await this.#bulkWithRetries(batch, options);
      result.succeeded += outcome.succeeded;
      result.failed.push(...outcome.failed);
      batch = [];
      bytes = 0;
    };
    for (const operation of operations) {
      if (
        batch.length >= this.#policy.maxDocuments ||
        (batch.length > 0 && bytes + operation.bytes > this.#policy.maxBytes)
      ) {
        await flush();
      }
      batch.push(operation);
      bytes += operation.bytes;
    }
    await flush();
    return result;
  }

  /** One batch; items the engine rejected with 429 are sent again, alone, after a backoff. */
  async #bulkWithRetries(operations: BulkOperation[], options: WriteOptions): Promise<BulkResult> {
    const result: BulkResult = { succeeded: 0, failed: [] };
    let pending = operations;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const lastAttempt = attempt >= this.#policy.maxAttempts;
      const timeout = this.#timeoutBefore(options.deadline);
      let items: Record<string, { status: number; error?: unknown }>[];
      try {
        const body = pending.flatMap((operation) => operation.lines) as unknown as BulkBody;
        items = (await this.#client.bulk(
          { body, refresh: options.refresh ? "wait_for" : undefined },
          timeout === undefined ? undefined : { requestTimeout: timeout },
        )).body.items;
      } catch (error) {
        if (lastAttempt || !isRetryable(error)) throw this.#options.problem(error);
        await this.#backoff(attempt);
        continue;
      }
      const retry: BulkOperation[] = [];
      let cursor = 0;
      for (const operation of pending) {
        const outcomes = items.slice(
          cursor,
          cursor + operation.lines.length / (operation.isDelete ? 1 : 2),
        );
        cursor += outcomes.length;
        // The first target decides: a rebuild's copy (the others) that fails is made good
        // by the job's re-queue after its swap, and one dropped meanwhile answers 404.
        const outcome = Object.values(outcomes[0] ?? {})[0];
        // 409: the index holds a newer (or the same) version already; nothing to write.
        if (
          !outcome || outcome.status < 300 || outcome.status === 409 ||
          (operation.isDelete && outcome.status === 404)
        ) {
          result.succeeded++;
        } else if (!lastAttempt && outcome.status === 429) {
          retry.push(operation);
        } else {
          const retryable = isRetryableItemFailure(outcome.status, outcome.error);
          if (retryable) this.#options.onRetryableFailure();
          result.failed.push({
            uri: operation.uri,
            kind: retryable
              ? "unavailable"
              : outcome.status === 400
              ? "invalid-input"
              : "backend-failed",
            message: itemMessage(outcome.error),
            retryable,
          });
        }
      }
      pending = retry;
      if (pending.length > 0) await this.#backoff(attempt);
    }
    return result;
  }

  /**
   * The request timeout that ends a request by `deadline` (undefined: the client's own);
   * a deadline already past is 503, so no request starts after it.
   */
  #timeoutBefore(deadline: number | undefined): number | undefined {
    if (deadline === undefined) return undefined;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new DomainError("search-unavailable", {
        detail: "The write's deadline passed before OpenSearch accepted it.",
      });
    }
    return Math.min(left, this.#options.requestTimeoutMs);
  }

  #backoff(attempt: number): Promise<void> {
    const delay = Math.min(
      this.#policy.maxBackoffMs,
      this.#policy.initialBackoffMs * 2 ** (attempt - 1),
    );
    return new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
  }
}
