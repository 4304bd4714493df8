/**
 * Webhook delivery state (`webhook_state.ts`) in the SPARQL store's metadata graph, shared by
 * every instance on the store, beside the index outbox and the job records.
 *
 * An endpoint is `<urn:rdf-content-service:webhook:SHA256>` (of its collection and URL) with
 * `rcs:hookCollection`, `rcs:hookUrl`, `rcs:hookPosition`, `rcs:hookAttempts`,
 * `rcs:hookFailingSince` and `rcs:hookNextAttempt` ("" for none), `rcs:hookLast` (the newest
 * attempt as JSON, "null" before the first), and its lease: `rcs:hookHolder` (an instance id,
 * "" before the first claim) and `rcs:hookLeaseUntil` (epoch ms of the holder's clock, as the
 * job records: clocks must agree to well within a lease). Every one of them is always there,
 * so that no read depends on an `OPTIONAL` (whose bindings Virtuoso 7.2 may drop,
 * `portable_sparql.ts`).
 *
 * A dead letter is `<urn:rdf-content-service:webhook-letter:ID>` with `rcs:letterOf` (its
 * endpoint), `rcs:letterId`, `rcs:letterChange` (JSON), `rcs:letterState`,
 * `rcs:letterAttempts`, `rcs:letterDeadAt`, `rcs:letterLast` (JSON) and `rcs:letterCreated`
 * (ms, the order "oldest first" goes by). Its id is a random integer below 2^49: instances
 * make letters without asking each other (a shared counter would be a read-modify-write race
 * between them), the API's ids are numbers, and `redeliver?id=` takes up to 15 digits. Two of
 * n letters share an id with a chance of about n²/2^50 (one in ten million for 10,000).
 *
 * Each write that moves an endpoint on is one update guarded on its holder (`rcs:hookHolder`
 * is the writer) that renews the lease in the same step: steady delivery costs no request
 * for the lease, and an instance whose lease another took cannot move the position. The
 * endpoint runs an update in one transaction, so a claim and a guarded write never interleave.
 */
import type { SparqlHttpClient } from "../sparql_protocol/client.ts";
import { integerLiteral, iriToSparql, stringToSparql } from "../sparql_protocol/terms.ts";
import { nodeFields } from "../sparql_protocol/node_fields.ts";
import { selectRows } from "../sparql_protocol/bounded_queries.ts";
import { whenAbsent } from "../sparql_protocol/portable_sparql.ts";
import { METADATA_NAMESPACE, PROLOGUE } from "../sparql_protocol/service_vocabulary.ts";
import type { SparqlRow } from "../sparql_protocol/results_json.ts";
import type {
  AttemptOutcome,
  DeadLetter,
  DeliveryState,
  DueChange,
  EndpointKey,
  WebhookStateStore,
} from "./webhook_state.ts";

const ENDPOINT_PREFIX = `${METADATA_NAMESPACE}webhook:`;
const LETTER_PREFIX = `${METADATA_NAMESPACE}webhook-letter:`;
/** Dead letters' changes are item changes (a few KiB): every letter kept fits far below this. */
const MAX_LETTERS_BYTES = 256 << 20;

/** Reads of an endpoint's state after creating it, before giving up (see `open`). */
const OPEN_READS = 4;

/**
 * The field each predicate of an endpoint's or a letter's node holds (read as the nodes'
 * plain triples, `node_fields.ts`: Virtuoso's cost estimate refused the endpoints' listing
 * as a star of patterns under the suites).
 */
const STATE_FIELDS: Record<string, string> = {
  [`${METADATA_NAMESPACE}hookCollection`]: "collection",
  [`${METADATA_NAMESPACE}hookUrl`]: "url",
  [`${METADATA_NAMESPACE}hookPosition`]: "position",
  [`${METADATA_NAMESPACE}hookAttempts`]: "attempts",
  [`${METADATA_NAMESPACE}hookFailingSince`]: "failingSince",
  [`${METADATA_NAMESPACE}hookNextAttempt`]: "nextAttempt",
  [`${METADATA_NAMESPACE}hookLast`]: "last",
  [`${METADATA_NAMESPACE}hookHolder`]: "holder",
  [`${METADATA_NAMESPACE}hookLeaseUntil`]: "until",
};
const LETTER_FIELDS: Record<string, string> = {
  [`${METADATA_NAMESPACE}letterOf`]: "endpoint",
  [`${METADATA_NAMESPACE}letterId`]: "id",
  [`${METADATA_NAMESPACE}letterChange`]: "change",
  [`${METADATA_NAMESPACE}letterState`]: "state",
  [`${METADATA_NAMESPACE}letterAttempts`]: "letterAttempts",
  [`${METADATA_NAMESPACE}letterDeadAt`]: "deadAt",
  [`${METADATA_NAMESPACE}letterLast`]: "letterLast",
  [`${METADATA_NAMESPACE}letterCreated`]: "created",
};

/** The delivery state in `metadataGraph`; a lease lasts `leaseMs` from its last renewal. */
export class SparqlWebhookState implements WebhookStateStore {
  readonly #client: SparqlHttpClient;
  readonly #meta: string;
  readonly #leaseMs: number;

  constructor(client: SparqlHttpClient, metadataGraph: string, leaseMs: number) {
    this.#client = client;
    this.#meta = iriToSparql(metadataGraph);
    this.#leaseMs = leaseMs;
  }

  async claim(key: EndpointKey, holder: string): Promise<boolean> {
    const endpoint = await endpointIri(key);
    const now = Date.now();
    const me = stringToSparql(holder);
    // The lease's triples first, when the endpoint never had any; then taken when free.
    await this.#client.update(
      `${PROLOGUE}
      ${this.#leaseWhenAbsent(endpoint)} ;
      DELETE { GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder ?holder ; rcs:hookLeaseUntil ?until } }
      INSERT { GRAPH ${this.#meta} {
        ${endpoint} rcs:hookHolder ${me} ; rcs:hookLeaseUntil ${
        integerLiteral(now + this.#leaseMs)
      } } }
      WHERE { GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder ?holder ; rcs:hookLeaseUntil ?until }
        FILTER(?holder = ${me} || ?until <= ${now}) }`,
      { idempotent: true },
    );
    const rows = await selectRows(
      this.#client,
      `${PROLOGUE}SELECT ?holder WHERE { GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder ?holder } }`,
    );
    return rows.length === 1 && rows[0].get("holder")?.value === holder;
  }

  async release(key: EndpointKey, holder: string): Promise<void> {
    const endpoint = await endpointIri(key);
    // The holder's name stays (the admin view shows who had it last); its lease ends now.
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} { ${endpoint} rcs:hookLeaseUntil ?until } }
      INSERT { GRAPH ${this.#meta} { ${endpoint} rcs:hookLeaseUntil 0 } }
      WHERE { GRAPH ${this.#meta} {
        ${endpoint} rcs:hookHolder ${stringToSparql(holder)} ; rcs:hookLeaseUntil ?until } }`,
      { idempotent: true },
    );
  }

  async open(key: EndpointKey, position: () => Promise<string>): Promise<DeliveryState> {
    const endpoint = await endpointIri(key);
    const found = await this.#states(endpoint);
    if (found[0]) return found[0];
    await this.#client.update(
      `${PROLOGUE}
      INSERT { GRAPH ${this.#meta} { ${endpoint} rcs:hookCollection ${
        stringToSparql(key.collection)
      } ;
        rcs:hookUrl ${stringToSparql(key.url)} ; rcs:hookPosition ${
        stringToSparql(await position())
      } ;
        rcs:hookAttempts 0 ; rcs:hookFailingSince "" ; rcs:hookNextAttempt "" ;
        rcs:hookLast "null" } }
      WHERE { ${whenAbsent(`GRAPH ${this.#meta} { ${endpoint} rcs:hookPosition ?any }`)} } ;
      ${this.#leaseWhenAbsent(endpoint)}`,
      { idempotent: true },
    );
    // Virtuoso reads at "read committed": an endpoint another instance is rewriting at this
    // moment can be missed (as job records can, `sparql_job_store.ts`); read it again.
    for (let attempt = 1;; attempt++) {
      const [created] = await this.#states(endpoint);
      if (created) return created;
      if (attempt === OPEN_READS) {
        throw new Error(
          `webhook state of ${key.collection} ${key.url} not found after creating it`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }

  async queuedLetter(key: EndpointKey): Promise<DeadLetter | undefined> {
    const endpoint = await endpointIri(key);
    // Only the queued ones are read: an endpoint may keep many dead letters, and this is
    // asked at every delivery run.
    const [letter] = await this.#letters(
      `?letter rcs:letterOf ${endpoint} ; rcs:letterState "queued"`,
    );
    return letter && toLetter(letter, key);
  }

  async delivered(
    key: EndpointKey,
    due: DueChange,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void> {
    const endpoint = await endpointIri(key);
    const removeLetter = due.letter === undefined ? "" : `;
      DELETE { GRAPH ${this.#meta} { ?letter ?p ?o } }
      WHERE { GRAPH ${this.#meta} {
        ${endpoint} rcs:hookHolder ${stringToSparql(holder)} .
        ?letter rcs:letterOf ${endpoint} ; rcs:letterId ${integerLiteral(due.letter)} ; ?p ?o } }`;
    // The letter goes after the guarded move: it still holds when the move took effect.
    await this.#client.update(
      `${PROLOGUE}${this.#movePast(endpoint, holder, due, outcome)}${removeLetter}`,
      { idempotent: true },
    );
  }

  async failed(
    key: EndpointKey,
    outcome: AttemptOutcome,
    nextAttempt: string,
    holder: string,
  ): Promise<void> {
    const endpoint = await endpointIri(key);
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} { ${endpoint} rcs:hookAttempts ?attempts ;
        rcs:hookFailingSince ?failingSince ; rcs:hookNextAttempt ?nextAttempt ; rcs:hookLast ?last ;
        rcs:hookLeaseUntil ?until } }
      INSERT { GRAPH ${this.#meta} { ${endpoint} rcs:hookAttempts ?attemptsAfter ;
        rcs:hookFailingSince ?since ; rcs:hookNextAttempt ${stringToSparql(nextAttempt)} ;
        rcs:hookLast ${lastLiteral(outcome)} ; rcs:hookLeaseUntil ${this.#renewedUntil()} } }
      WHERE { ${this.#heldState(endpoint, holder)}
        BIND(?attempts + 1 AS ?attemptsAfter)
        BIND(IF(?failingSince = "", ${stringToSparql(outcome.at)}, ?failingSince) AS ?since) }`,
      { idempotent: false }, // applied twice, it would count the failure twice
    );
  }

  async deadLettered(
    key: EndpointKey,
    due: DueChange,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void> {
    const endpoint = await endpointIri(key);
    // The letter's attempts: the endpoint's failures of it so far, and this one.
    if (due.letter === undefined) {
      const id = newLetterId();
      const letter = iriToSparql(`${LETTER_PREFIX}${id}`);
      const change = stringToSparql(JSON.stringify(due.change));
      const [at, last] = [stringToSparql(outcome.at), lastLiteral(outcome)];
      const triples = `${letter} rcs:letterOf ${endpoint} ; rcs:letterId ${integerLiteral(id)} ;
        rcs:letterChange ${change} ; rcs:letterState "dead" ;
        rcs:letterAttempts ?letterAttempts ; rcs:letterDeadAt ${at} ; rcs:letterLast ${last} ;
        rcs:letterCreated ${integerLiteral(Date.now())} .`;
      await this.#client.update(
        `${PROLOGUE}${this.#movePast(endpoint, holder, due, outcome, triples)}`,
        // Not sent again: a retry after an answer lost would add a second attempts count.
        { idempotent: false },
      );
      return;
    }
    const [at, last] = [stringToSparql(outcome.at), lastLiteral(outcome)];
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} {
        ?letter rcs:letterState ?state ; rcs:letterAttempts ?before ; rcs:letterDeadAt ?deadAt ;
          rcs:letterLast ?letterLast } }
      INSERT { GRAPH ${this.#meta} {
        ?letter rcs:letterState "dead" ; rcs:letterAttempts ?after ;
          rcs:letterDeadAt ${at} ; rcs:letterLast ${last} } }
      WHERE { GRAPH ${this.#meta} {
        ${endpoint} rcs:hookHolder ${stringToSparql(holder)} ; rcs:hookAttempts ?attempts .
        ?letter rcs:letterOf ${endpoint} ; rcs:letterId ${integerLiteral(due.letter)} ;
          rcs:letterState ?state ; rcs:letterAttempts ?before ; rcs:letterDeadAt ?deadAt ;
          rcs:letterLast ?letterLast }
        BIND(?before + ?attempts + 1 AS ?after) } ;
      ${this.#movePast(endpoint, holder, due, outcome)}`,
      { idempotent: false }, // applied twice, it would count the attempts twice
    );
  }

  async skipTo(
    key: EndpointKey,
    position: string,
    outcome: AttemptOutcome,
    holder: string,
  ): Promise<void> {
    await this.#client.update(
      `${PROLOGUE}${this.#advance(await endpointIri(key), holder, outcome, position)}`,
      { idempotent: true },
    );
  }

  async redeliver(id: number): Promise<DeadLetter | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    await this.#client.update(
      `${PROLOGUE}
      DELETE { GRAPH ${this.#meta} { ?letter rcs:letterState ?state } }
      INSERT { GRAPH ${this.#meta} { ?letter rcs:letterState "queued" } }
      WHERE { GRAPH ${this.#meta} {
        ?letter rcs:letterId ${integerLiteral(id)} ; rcs:letterState ?state } }`,
      { idempotent: true },
    );
    const [letter] = await this.#letters(`?letter rcs:letterId ${integerLiteral(id)}`);
    if (!letter) return undefined;
    const endpoints = await this.#states(iriToSparql(value(letter, "endpoint")));
    return endpoints.length === 0 ? undefined : toLetter(letter, endpoints[0]);
  }

  states(): Promise<DeliveryState[]> {
    return this.#states();
  }

  async deadLetters(): Promise<DeadLetter[]> {
    const letters = await this.#letters("?letter rcs:letterOf ?anyEndpoint");
    const endpoints = new Map<string, EndpointKey>();
    for (const [node, state] of await this.#stateNodes()) endpoints.set(node, state);
    return letters.flatMap((letter) => {
      const key = endpoints.get(value(letter, "endpoint"));
      return key ? [toLetter(letter, key)] : [];
    });
  }

  /** Every endpoint's state, or `endpoint`'s alone, by collection and URL. */
  async #states(endpoint?: string): Promise<DeliveryState[]> {
    return [...(await this.#stateNodes(endpoint)).values()]
      .sort((a, b) => a.collection.localeCompare(b.collection) || a.url.localeCompare(b.url));
  }

  /** The endpoints' states by node IRI, read as plain triples (see {@link STATE_FIELDS}). */
  async #stateNodes(endpoint?: string): Promise<Map<string, DeliveryState>> {
    const bind = endpoint === undefined ? "" : `VALUES ?node { ${endpoint} }`;
    const nodes = await this.#nodes(
      `${bind} ?node rcs:hookCollection ?anyCollection`,
      STATE_FIELDS,
      1 << 20,
    );
    const states = new Map<string, DeliveryState>();
    for (const [node, fields] of nodes) {
      if (Object.values(STATE_FIELDS).every((field) => fields.has(field))) {
        states.set(node, toState(fields));
      }
    }
    return states;
  }

  /** The letters `pattern` (binding `?letter`) finds, oldest first, as their fields. */
  async #letters(pattern: string): Promise<SparqlRow[]> {
    const nodes = await this.#nodes(
      pattern.replaceAll("?letter", "?node"),
      LETTER_FIELDS,
      MAX_LETTERS_BYTES,
    );
    return [...nodes.values()]
      .filter((fields) => Object.values(LETTER_FIELDS).every((field) => fields.has(field)))
      .sort((a, b) =>
        value(a, "created").localeCompare(value(b, "created")) ||
        Number(value(a, "id")) - Number(value(b, "id"))
      );
  }

  /** The triples of the nodes `?node` that `pattern` finds, as fields by `names`. */
  async #nodes(
    pattern: string,
    names: Record<string, string>,
    maxBytes: number,
  ): Promise<Map<string, SparqlRow>> {
    const rows = await selectRows(
      this.#client,
      `${PROLOGUE}SELECT ?node ?p ?o WHERE { GRAPH ${this.#meta} { ${pattern} . ?node ?p ?o } }`,
      maxBytes,
    );
    return nodeFields(rows, "node", names);
  }

  /** An update that gives the endpoint an ended lease of nobody, when it has no lease yet. */
  #leaseWhenAbsent(endpoint: string): string {
    return `INSERT { GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder "" ; rcs:hookLeaseUntil 0 } }
      WHERE { ${whenAbsent(`GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder ?any }`)} }`;
  }

  /**
   * The endpoint's failure state and lease, matched only while `holder` holds it (its
   * `?attempts`, `?failingSince`, `?nextAttempt`, `?last`, `?until` bound).
   */
  #heldState(endpoint: string, holder: string): string {
    return `GRAPH ${this.#meta} { ${endpoint} rcs:hookHolder ${stringToSparql(holder)} ;
      rcs:hookAttempts ?attempts ; rcs:hookFailingSince ?failingSince ;
      rcs:hookNextAttempt ?nextAttempt ; rcs:hookLast ?last ; rcs:hookLeaseUntil ?until }`;
  }

  #renewedUntil(): string {
    return integerLiteral(Date.now() + this.#leaseMs);
  }

  /**
   * The update by which the endpoint is done with `due`: a redelivered letter only settles
   * its failures; a feed change also moves its position past the change. `also` (triples
   * that may use `?letterAttempts`, the failures of `due` with this one) goes in with it.
   */
  #movePast(
    endpoint: string,
    holder: string,
    due: DueChange,
    outcome: AttemptOutcome,
    also = "",
  ): string {
    return this.#advance(
      endpoint,
      holder,
      outcome,
      due.letter === undefined ? due.change.cursor : undefined,
      also,
    );
  }

  /** Clears the endpoint's failures, records `outcome`, and moves it to `position` if given. */
  #advance(
    endpoint: string,
    holder: string,
    outcome: AttemptOutcome,
    position?: string,
    also = "",
  ): string {
    const [deletePosition, insertPosition, matchPosition] = position === undefined
      ? ["", "", ""]
      : [
        `${endpoint} rcs:hookPosition ?position .`,
        `${endpoint} rcs:hookPosition ${stringToSparql(position)} .`,
        `GRAPH ${this.#meta} { ${endpoint} rcs:hookPosition ?position }`,
      ];
    return `DELETE { GRAPH ${this.#meta} { ${deletePosition} ${endpoint} rcs:hookAttempts ?attempts ;
        rcs:hookFailingSince ?failingSince ; rcs:hookNextAttempt ?nextAttempt ; rcs:hookLast ?last ;
        rcs:hookLeaseUntil ?until } }
      INSERT { GRAPH ${this.#meta} { ${insertPosition} ${endpoint} rcs:hookAttempts 0 ;
        rcs:hookFailingSince "" ; rcs:hookNextAttempt "" ; rcs:hookLast ${lastLiteral(outcome)} ;
        rcs:hookLeaseUntil ${this.#renewedUntil()} . ${also} } }
      WHERE { ${this.#heldState(endpoint, holder)} ${matchPosition}
        BIND(?attempts + 1 AS ?letterAttempts) }`;
  }
}

/** The endpoint's IRI: a hash, so that any collection and URL make a short, valid IRI. */
async function endpointIri(key: EndpointKey): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(JSON.stringify([key.collection, key.url])),
  );
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return iriToSparql(`${ENDPOINT_PREFIX}${hex}`);
}

/** A dead letter's id: random, 1 to 2^49 - 1 (see the module comment). */
function newLetterId(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1_ffff) * 2 ** 32 + low || 1;
}

function lastLiteral(outcome: AttemptOutcome): string {
  return stringToSparql(JSON.stringify(outcome));
}

function value(row: SparqlRow, name: string): string {
  const term = row.get(name);
  if (term === undefined) throw new Error(`webhook state row without ?${name}`);
  return term.value;
}

/** "" stands for none (every fact is always there: see the module comment). */
function orNull(text: string): string | null {
  return text === "" ? null : text;
}

function toState(row: SparqlRow): DeliveryState {
  const holder = value(row, "holder");
  return {
    collection: value(row, "collection"),
    url: value(row, "url"),
    position: value(row, "position"),
    attempts: Number(value(row, "attempts")),
    failingSince: orNull(value(row, "failingSince")),
    nextAttempt: orNull(value(row, "nextAttempt")),
    last: JSON.parse(value(row, "last")),
    lease: holder === ""
      ? null
      : { holder, until: new Date(Number(value(row, "until"))).toISOString() },
  };
}

function toLetter(row: SparqlRow, endpoint: EndpointKey): DeadLetter {
  return {
    id: Number(value(row, "id")),
    collection: endpoint.collection,
    url: endpoint.url,
    change: JSON.parse(value(row, "change")),
    state: value(row, "state") as DeadLetter["state"],
    attempts: Number(value(row, "letterAttempts")),
    deadAt: value(row, "deadAt"),
    last: JSON.parse(value(row, "letterLast")),
  };
}
