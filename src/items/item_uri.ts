/**
 * Which URI a created item gets (docs/api.md, Items): the `item` parameter if given; otherwise the
 * body's single root subject; a blank-node root is named by minting a URI from the
 * collection's `itemUriTemplate`.
 */
import { DataFactory } from "n3";
import type { Quad, Quad_Object, Quad_Subject } from "n3";
import { DomainError } from "../errors/domain_error.ts";
import { findRootSubjects } from "../rdf/roots.ts";

/** The chosen URI and the graph to store (a blank-node root renamed to it). */
export interface ChosenItem {
  uri: string;
  quads: Quad[];
}

/** Fills `{uuid}` in a collection's item URI template. */
export function mintItemUri(template: string): string {
  return template.replaceAll("{uuid}", crypto.randomUUID());
}

/** Applies the API's rules for naming a new item. */
export function chooseItemUri(
  quads: Quad[],
  itemParameter: string | undefined,
  template: string | undefined,
): ChosenItem {
  const roots = findRootSubjects(quads);
  if (itemParameter !== undefined) {
    if (quads.some((quad) => quad.subject.value === itemParameter)) {
      return { uri: itemParameter, quads };
    }
    if (roots.iris.length === 0 && roots.blankNodes.length === 1) {
      return {
        uri: itemParameter,
        quads: renameBlankNode(quads, roots.blankNodes[0], itemParameter),
      };
    }
    throw new DomainError("item-not-described", {
      detail: `No triple of the body has <${itemParameter}> as its subject.`,
      errors: [{ path: "item", message: "not a subject of the body" }],
    });
  }
  const count = roots.iris.length + roots.blankNodes.length;
  if (count !== 1) {
    const named = [
      ...roots.iris.map((iri) => `<${iri}>`),
      ...roots.blankNodes.map((b) => `_:${b}`),
    ];
    throw new DomainError(count === 0 ? "no-root-subject" : "several-root-subjects", {
      detail: count === 0
        ? "The body has no root subject (every subject is another triple's object); pass 'item'."
        : `The body has ${count} root subjects (${named.slice(0, 10).join(", ")}); ` +
          "pass 'item' to say which one is the item.",
      errors: named.slice(0, 50).map((name) => ({ path: "body", message: `root subject ${name}` })),
    });
  }
  if (roots.iris.length === 1) return { uri: roots.iris[0], quads };
  if (!template) {
    throw new DomainError("blank-root-subject", {
      detail:
        "The body's root subject is a blank node and the collection has no itemUriTemplate; " +
        "pass 'item' or give the root an IRI.",
      errors: [{ path: "body", message: `root subject _:${roots.blankNodes[0]}` }],
    });
  }
  const uri = mintItemUri(template);
  return { uri, quads: renameBlankNode(quads, roots.blankNodes[0], uri) };
}

function renameBlankNode(quads: Quad[], label: string, iri: string): Quad[] {
  const named = DataFactory.namedNode(iri);
  const swap = <T extends Quad_Subject | Quad_Object>(term: T): T =>
    (term.termType === "BlankNode" && term.value === label ? named : term) as T;
  return quads.map((quad) =>
    DataFactory.quad(swap(quad.subject), quad.predicate, swap(quad.object), quad.graph)
  );
}
