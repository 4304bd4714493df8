/**
 * SHACL validation of item writes (docs/api.md: a collection with `shapes` validates every
 * write; violations are unprocessable with the report's results in `errors`).
 *
 * Shapes files are read and parsed once at start-up, so a missing or broken file stops the
 * service with the key path instead of failing writes later.
 *
 * An item is validated with what its collection knows about the resources it links to:
 * `sh:class` asks for the type of a value, and `sh:node` for its properties, which the
 * value's own item states. Those items are added to the data graph (their blank nodes kept
 * apart), and only results about the item's own nodes count: a linked item is context, not
 * validated again. Only the collection's own items are read, so what a write is told cannot
 * reveal another collection's data.
 */
import { readFileSync } from "node:fs";
import { DataFactory, Parser, Store } from "n3";
import type { Quad, Term } from "n3";
import SHACLValidator from "rdf-validate-shacl";
import type { CollectionEntry } from "../catalog/catalog.ts";
import type { CollectionConfig, WorkspaceConfig } from "../config/schema.ts";
import { ConfigError } from "../config/load.ts";
import { DomainError } from "../errors/domain_error.ts";
import type { LinkedItems, ShapeValidator } from "./item_service.ts";

/** Results listed in one problem; the count says how many there were in all. */
const MAX_REPORTED_RESULTS = 100;
/** Most linked items read as context for one write (a bound on its cost). */
const MAX_LINKED_ITEMS = 1000;
const SH = "http://www.w3.org/ns/shacl#";
/** Constraints that look at a value node's own properties (its type, or a node shape). */
const LINK_CONSTRAINTS = ["class", "node", "qualifiedValueShape"].map((name) => SH + name);

/** A collection's shapes, and whether they ever look at the nodes an item links to. */
interface Shapes {
  validator: SHACLValidator;
  readsLinks: boolean;
}

/**
 * Validates writes of the collections that set `shapes` (a file) or `shapesTurtle`; others
 * pass. customer.yml's shapes are read at start-up; a collection made at run time has its
 * shapes read (and checked, see {@link collectionShapesProblem}) when it is made, and its
 * validator built at its first write. A changed collection is a new settings object, so
 * its validator is built again.
 */
export class CollectionShapes implements ShapeValidator {
  readonly #validators = new WeakMap<CollectionConfig, Shapes | null>();

  /** Reads every configured shapes file; throws {@link ConfigError} naming the key. */
  constructor(workspaces: WorkspaceConfig[]) {
    workspaces.forEach((workspace, w) =>
      workspace.collections.forEach((collection, c) => {
        const key = `workspaces[${w}].collections[${c}].shapes`;
        this.#validators.set(collection, validatorOf(collection, key));
      })
    );
  }

  readsLinks(entry: CollectionEntry): boolean {
    return this.#shapesOf(entry)?.readsLinks ?? false;
  }

  async validate(entry: CollectionEntry, quads: Quad[], linked: LinkedItems): Promise<void> {
    const shapes = this.#shapesOf(entry);
    if (!shapes) return;
    const data = new Store(quads);
    if (shapes.readsLinks) {
      const own = new Set(quads.map((quad) => quad.subject.id));
      const links = [
        ...new Set(
          quads.flatMap((quad) =>
            quad.object.termType === "NamedNode" && !own.has(quad.object.id)
              ? [quad.object.value]
              : []
          ),
        ),
      ].slice(0, MAX_LINKED_ITEMS);
      (await linked(links)).forEach((graph, i) => data.addQuads(apart(graph, `rcs_link${i}_`)));
    }
    const report = await shapes.validator.validate(data);
    if (report.conforms) return;
    const ownNodes = new Set(quads.map((quad) => quad.subject.id));
    const results = report.results.filter((result) =>
      result.focusNode && ownNodes.has(termId(result.focusNode))
    );
    if (results.length === 0) return;
    throw new DomainError("shacl-violation", {
      detail: `${results.length} SHACL result(s) from the shapes of <${entry.collection.uri}>` +
        (results.length > MAX_REPORTED_RESULTS
          ? `; the first ${MAX_REPORTED_RESULTS} listed.`
          : "."),
      errors: results.slice(0, MAX_REPORTED_RESULTS).map((result) => ({
        path: [termText(result.focusNode), result.path ? termText(result.path) : undefined]
          .filter((part) => part !== undefined).join(" "),
        message: resultMessage(result),
      })),
    });
  }

  /** The collection's shapes (built at its first use), or null when it sets none. */
  #shapesOf(entry: CollectionEntry): Shapes | null {
    let shapes = this.#validators.get(entry.collection);
    if (shapes === undefined) {
      shapes = validatorOf(entry.collection, "shapes");
      this.#validators.set(entry.collection, shapes);
    }
    return shapes;
  }
}

/** The collection's validator, or null when it sets no shapes. */
function validatorOf(collection: CollectionConfig, key: string): Shapes | null {
  const store = collection.shapesTurtle !== undefined
    ? parseShapes(collection.shapesTurtle, "shapesTurtle", key)
    : collection.shapes
    ? readShapes(collection.shapes, key)
    : undefined;
  if (!store) return null;
  return {
    validator: new SHACLValidator(store),
    readsLinks: LINK_CONSTRAINTS.some((iri) => store.countQuads(null, iri, null, null) > 0),
  };
}

/** `graph` with its blank nodes relabelled under `prefix`, apart from every other graph's. */
function apart(graph: Quad[], prefix: string): Quad[] {
  const relabel = <T extends Term>(term: T): T =>
    (term.termType === "BlankNode" ? DataFactory.blankNode(prefix + term.value) : term) as T;
  return graph.map((quad) =>
    DataFactory.quad(relabel(quad.subject), quad.predicate, relabel(quad.object))
  );
}

/** The N3.js id of a report's term, to compare with the item's own nodes. */
function termId(term: ReportTerm): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}

/**
 * Why a collection's shapes cannot be used (an unreadable file, Turtle that does not
 * parse), as an invalid-settings problem naming the field; undefined when they can.
 */
export function collectionShapesProblem(collection: CollectionConfig): DomainError | undefined {
  try {
    validatorOf(collection, "shapes");
    return undefined;
  } catch (error) {
    const field = collection.shapesTurtle !== undefined ? "shapesTurtle" : "shapes";
    return new DomainError("invalid-settings", {
      detail: (error as Error).message,
      errors: [{ path: `/${field}`, message: (error as Error).message }],
    });
  }
}

function parseShapes(text: string, source: string, key: string): Store {
  try {
    return new Store(new Parser({ baseIRI: `urn:rdf-content-service:shapes:` }).parse(text));
  } catch (error) {
    throw new ConfigError(key, [
      `${key}: ${source} is not valid Turtle: ${(error as Error).message}`,
    ]);
  }
}

function readShapes(path: string, key: string): Store {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(key, [`${key}: cannot read ${path}: ${(error as Error).message}`]);
  }
  try {
    return new Store(new Parser({ baseIRI: `file://${path}` }).parse(text));
  } catch (error) {
    throw new ConfigError(key, [
      `${key}: ${path} is not valid Turtle: ${(error as Error).message}`,
    ]);
  }
}

/** The part of an RDF/JS term a report result needs (the validator has its own types). */
interface ReportTerm {
  termType: string;
  value: string;
}

interface ReportResult {
  focusNode: ReportTerm | null;
  path: ReportTerm | null;
  message: ReportTerm[];
  sourceConstraintComponent: ReportTerm | null;
  value: ReportTerm | null;
}

/** The shapes' message (or the validator's), then the constraint component that reported. */
function resultMessage(result: ReportResult): string {
  const component = result.sourceConstraintComponent?.value.replace(/^.*[#/]/, "");
  const messages = result.message.map((term) => term.value);
  if (messages.length === 0) {
    messages.push(result.value ? `value ${termText(result.value)}` : "violation");
  }
  return component ? `${messages.join("; ")} (${component})` : messages.join("; ");
}

function termText(term: ReportTerm | null): string | undefined {
  if (!term) return undefined;
  if (term.termType === "NamedNode") return `<${term.value}>`;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  return JSON.stringify(term.value);
}
