/**
 * What `GET /api/admin/webhooks` shows and `POST /api/admin/webhooks/redeliver` does
 * (docs/api.md, Webhooks): each configured endpoint's delivery state, never its secret, and
 * dead letters put back for delivery.
 */
import { DomainError } from "../errors/domain_error.ts";
import type { ChangeFeed } from "../store/change_feed.ts";
import type { WebhookDeliverer, WebhookEndpoint } from "./webhook_deliverer.ts";
import type { DeadLetter, DeliveryState, WebhookStateStore } from "./webhook_state.ts";

/** Changes counted as pending at most: beyond, `pending` says "at least". */
export const PENDING_COUNTED = 1000;

/** One endpoint as the admin route shows it. */
export interface EndpointReport {
  collection: string;
  url: string;
  /** The cursor of the last change done with; null before delivery started. */
  position: string | null;
  /** Feed changes after the position, counted up to {@link PENDING_COUNTED}. */
  pending: number;
  attempts: number;
  failingSince: string | null;
  nextAttempt: string | null;
  last: DeliveryState["last"];
  /** Which instance delivers to it, until when (several instances on one store); else null. */
  lease: DeliveryState["lease"];
  deadLetters: DeadLetter[];
}

/** The admin view of webhook delivery. */
export class WebhookAdmin {
  constructor(
    private readonly feed: ChangeFeed,
    private readonly state: WebhookStateStore,
    private readonly endpoints: () => WebhookEndpoint[],
    private readonly deliverer: WebhookDeliverer,
  ) {}

  /** Every configured endpoint, with its state and dead letters. */
  async report(): Promise<EndpointReport[]> {
    const states = await this.state.states();
    const letters = await this.state.deadLetters();
    const reports: EndpointReport[] = [];
    for (const { collection, url } of this.endpoints()) {
      const state = states.find((s) => s.collection === collection && s.url === url);
      reports.push({
        collection,
        url,
        position: state?.position ?? null,
        pending: state ? await this.#pending(collection, state.position) : 0,
        attempts: state?.attempts ?? 0,
        failingSince: state?.failingSince ?? null,
        nextAttempt: state?.nextAttempt ?? null,
        last: state?.last ?? null,
        lease: state?.lease ?? null,
        deadLetters: letters.filter((l) => l.collection === collection && l.url === url),
      });
    }
    return reports;
  }

  /** Puts dead letter `id` back for delivery; 404 `dead-letter-not-found` when none. */
  async redeliver(id: number): Promise<DeadLetter> {
    const letter = await this.state.redeliver(id);
    if (!letter) {
      throw new DomainError("dead-letter-not-found", {
        detail: `No webhook dead letter ${id}; GET /api/admin/webhooks lists them.`,
        errors: [{ path: "id", message: "no such dead letter" }],
      });
    }
    this.deliverer.wake();
    return letter;
  }

  async #pending(collection: string, position: string): Promise<number> {
    try {
      return (await this.feed.read(collection, position, PENDING_COUNTED)).changes.length;
    } catch {
      // Expired: the deliverer moves on from what is kept at its next wake.
      return 0;
    }
  }
}
