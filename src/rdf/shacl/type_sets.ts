/**
 * Interned sets of classes, so that "the classes of this node" is one integer and the
 * classes shared by many values are computed once per distinct pair of sets.
 *
 * @module
 */

/** The type set of a node without classes. */
export const NO_TYPES = -1;

/** Interned sets of classes (sorted class ids), with the subclass closure applied. */
export class TypeSets {
  readonly #sets: number[][] = [];
  readonly #ids = new Map<string, number>();
  readonly #closures = new Map<number, number[]>();
  readonly #intersections = new Map<number, number>();

  /** @param superClasses direct `rdfs:subClassOf` links between class ids. */
  constructor(private readonly superClasses: ReadonlyMap<number, readonly number[]>) {}

  /** The classes of a type set, sorted by id; none for `NO_TYPES`. */
  classesOf(typeSet: number): readonly number[] {
    return typeSet < 0 ? [] : this.#sets[typeSet];
  }

  /** The type set of a node with these `rdf:type` values, superclasses included. */
  ofDirectTypes(directTypes: readonly number[]): number {
    const classes = new Set<number>();
    for (const type of directTypes) for (const c of this.closureOf(type)) classes.add(c);
    return this.#intern([...classes].sort((a, b) => a - b));
  }

  /** The class and all its superclasses (cycles in `rdfs:subClassOf` are fine). */
  closureOf(type: number): readonly number[] {
    let closure = this.#closures.get(type);
    if (closure === undefined) {
      const seen = new Set<number>([type]);
      const pending = [type];
      while (pending.length > 0) {
        for (const superClass of this.superClasses.get(pending.pop()!) ?? []) {
          if (!seen.has(superClass)) {
            seen.add(superClass);
            pending.push(superClass);
          }
        }
      }
      closure = [...seen].sort((a, b) => a - b);
      this.#closures.set(type, closure);
    }
    return closure;
  }

  /** The type set of the classes both sets hold, or `NO_TYPES`. */
  intersect(left: number, right: number): number {
    if (left === right || left === NO_TYPES) return left;
    if (right === NO_TYPES) return NO_TYPES;
    // Type-set counts stay far below 2^26, so the pair key is exact.
    const key = Math.min(left, right) * 0x4000000 + Math.max(left, right);
    let result = this.#intersections.get(key);
    if (result === undefined) {
      const rightClasses = new Set(this.#sets[right]);
      const common = this.#sets[left].filter((type) => rightClasses.has(type));
      result = common.length === 0 ? NO_TYPES : this.#intern(common);
      this.#intersections.set(key, result);
    }
    return result;
  }

  #intern(sortedClasses: number[]): number {
    const key = sortedClasses.join(",");
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#sets.length;
      this.#sets.push(sortedClasses);
      this.#ids.set(key, id);
    }
    return id;
  }
}
