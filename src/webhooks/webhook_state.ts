/**
 * Where webhook delivery stands, per (collection, endpoint URL): the contract the deliverer
 * (`webhook_deliverer.ts`) keeps its state through, so that a store shared by several
 * instances keeps it too (`sparql_webhook_state.ts`) beside the embedded one
 * (`sqlite_webhook_state.ts`).
 *
 * An endpoint's position is the cursor of the last change it is done with (delivered, or
 * dead-lettered): the next change due is the feed's first after it, unless a dead letter has
 * been put back for delivery (those go first, oldest first). The failures of the change due
 * (attempts, since when, the next attempt) are kept with the position, so a restart resumes
 * the back-off instead of starting it again.
 *
 * Several instances sharing a store deliver each endpoint from one of them: the holder of
 * its lease ({@link WebhookStateStore.claim}). The writes that move an endpoint on name
 * their holder, and the shared store applies them only while that holder still has the
 * lease (renewing it), so an instance that lost it cannot move the position. A store of one
 * instance grants every claim.
 */
import type { ItemChange } from "../store/change_feed.ts";

/** One endpoint of one collection. */
export interface EndpointKey {
  collection: string;
  url: string;
}

/** The outcome of the newest attempt. */
export interface AttemptOutcome {
  /** When it was made (ISO 8601). */
  at: string;
  /** The endpoint's HTTP status; null when none came (refused, timed out). */
  status: number | null;
  /** Why it failed; null when it succeeded. */
  error: string | null;
}

/** An endpoint's delivery state. */
export interface DeliveryState extends EndpointKey {
  /** The cursor of the last change done with. */
  position: string;
  /** Failed attempts of the change due now (0: none failed). */
  attempts: number;
  /** When the change due first failed; null when it has not. */
  failingSince: string | null;
  /** When the change due is tried again; null: at once. */
  nextAttempt: string | null;
  /** The newest attempt, of any change; null before the first. */
  last: AttemptOutcome | null;
  /** Who holds the endpoint's lease, and until when; null when none ever did (one instance). */
  lease: EndpointLease | null;
}

/** An endpoint's lease: the instance that delivers to it. */
export interface EndpointLease {
  /** The instance's id. */
  holder: string;
  /** When the lease ends unless renewed (ISO 8601); past: it ended. */
  until: string;
}

/** A change an endpoint refused for `service.webhooks.retryForMs`, kept. */
export interface DeadLetter extends EndpointKey {
  id: number;
  change: ItemChange;
  /** `dead`: given up; `queued`: put back, delivered before the feed's next change. */
  state: "dead" | "queued";
  attempts: number;
  /** When it was (last) given up. */
  deadAt: string;
  last: AttemptOutcome;
}

/** What is delivered next: a feed change, or a dead letter put back. */
export interface DueChange {
  change: ItemChange;
  /** Set for a dead letter put back. */
  letter?: number;
}

/** The store of delivery state. */
export interface WebhookStateStore {
  /**
   * Takes the endpoint's lease for `holder` when it is free, ended or already `holder`'s,
   * and renews it (`service.cluster.leaseMs`); whether `holder` has it now.
   */
  claim(key: EndpointKey, holder: string): Promise<boolean>;
  /** Ends `holder`'s lease of the endpoint at once (on stop), so another takes it over. */
  release(key: EndpointKey, holder: string): Promise<void>;
  /** The endpoint's state; created at `position` when it has none. */
  open(key: EndpointKey, position: () => Promise<string>): Promise<DeliveryState>;
  /** The oldest dead letter of the endpoint put back for delivery. */
  queuedLetter(key: EndpointKey): Promise<DeadLetter | undefined>;
  // The writes below take effect only while `holder` holds the endpoint's lease, and renew it.
  /** `due` reached the endpoint: the position passes it (a letter is removed). */
  delivered(
    key: EndpointKey,
    due: DueChange,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void>;
  /** An attempt at the change due failed; it is tried again at `nextAttempt`. */
  failed(
    key: EndpointKey,
    outcome: AttemptOutcome,
    nextAttempt: string,
    holder: string,
  ): Promise<void>;
  /** `due` is given up: kept as a dead letter, and the position passes it. */
  deadLettered(
    key: EndpointKey,
    due: DueChange,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void>;
  /** Moves the position without delivering (changes pruned from the feed before delivery). */
  skipTo(
    key: EndpointKey,
    position: string,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void>;
  /** Puts a dead letter back for delivery; undefined when there is no such dead letter. */
  redeliver(id: number): Promise<DeadLetter | undefined>;
  /** Every endpoint's state. */
  states(): Promise<DeliveryState[]>;
  /** Every dead letter, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
}
