/**
 * The health every backend (triple store, search engine) reports for `/ready`. It sits below
 * both contracts so that neither has to import the other for it.
 */

/** State of a backend for `/ready`. */
export interface BackendHealth {
  ok: boolean;
  detail: string;
}
