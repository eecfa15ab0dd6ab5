/**
 * A large value sent between threads in pieces, so that the receiving thread deserializes a
 * bounded part of it per turn of its event loop (fix, issue 24: the values of a 22 MB price list,
 * 280,000 rules, came back from the reading worker as one message that took the main thread about
 * 0.4 s to deserialize, `/healthcheck` waiting behind it).
 *
 * The value is cut into subtrees of at most {@link NODES_PER_PIECE} values each: a container
 * (array or object) larger than that is sent empty, then filled by the pieces that follow, its
 * members in their order. Assembling the pieces in order gives a value deeply equal to the one
 * cut, with the same key order, array lengths, holes and `undefined` members.
 */

/** A member's key: an object's name or an array's index. */
export type MemberKey = string | number;

/** One piece: the value at `path` (the root's when empty) is given `members`, in their order; the first piece has the root. */
export type ValuePiece = { root: unknown } | { path: MemberKey[]; members: [MemberKey, unknown][] };

/** Values per piece at most (a few milliseconds of deserialization). */
export const NODES_PER_PIECE = 10_000;

function isContainer(value: unknown): value is Record<MemberKey, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The values in `value` (itself included), counted up to `limit` + 1 at most. */
function sizeUpTo(value: unknown, limit: number): number {
  if (!isContainer(value)) return 1;
  let size = 1;
  for (const key of Object.keys(value)) {
    size += sizeUpTo(value[key], limit - size);
    if (size > limit) return size;
  }
  return size;
}

/** An empty container of `value`'s kind: an array of its length (holes until filled), or an object. */
function emptyLike(value: Record<MemberKey, unknown>): unknown {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

/** The member keys in order: an array's indices (its holes left out, its `undefined` members not), an object's own names. */
function keysOf(value: Record<MemberKey, unknown>): MemberKey[] {
  if (!Array.isArray(value)) return Object.keys(value);
  const keys: number[] = [];
  for (let index = 0; index < value.length; index += 1) if (index in value) keys.push(index);
  return keys;
}

function* containerPieces(container: Record<MemberKey, unknown>, path: MemberKey[], budget: number): Generator<ValuePiece> {
  let members: [MemberKey, unknown][] = [];
  let size = 0;
  for (const key of keysOf(container)) {
    const member = container[key];
    const memberSize = sizeUpTo(member, budget);
    if (memberSize > budget && isContainer(member)) {
      members.push([key, emptyLike(member)]);
      yield { path, members };
      members = [];
      size = 0;
      yield* containerPieces(member, [...path, key], budget);
      continue;
    }
    members.push([key, member]);
    size += memberSize;
    if (size >= budget) {
      yield { path, members };
      members = [];
      size = 0;
    }
  }
  if (members.length > 0) yield { path, members };
}

/** `value` cut into pieces of at most `budget` values each (plain data: objects, arrays, scalars; no cycles). */
export function* valuePieces(value: unknown, budget = NODES_PER_PIECE): Generator<ValuePiece> {
  if (!isContainer(value) || sizeUpTo(value, budget) <= budget) {
    yield { root: value };
    return;
  }
  yield { root: emptyLike(value) };
  yield* containerPieces(value, [], budget);
}

/** Puts pieces back together, in the order {@link valuePieces} made them. */
export class ValueAssembly {
  private root: unknown;

  /** Adds the next piece. */
  add(piece: ValuePiece): void {
    if ('root' in piece) {
      this.root = piece.root;
      return;
    }
    let container = this.root as Record<MemberKey, unknown>;
    for (const key of piece.path) container = container[key] as Record<MemberKey, unknown>;
    for (const [key, member] of piece.members) {
      // A member named `__proto__` is an own member, as structured clone made it.
      if (key === '__proto__') Object.defineProperty(container, key, { value: member, enumerable: true, writable: true, configurable: true });
      else container[key] = member;
    }
  }

  /** The value assembled so far (the whole value once every piece was added). */
  get value(): unknown {
    return this.root;
  }
}
