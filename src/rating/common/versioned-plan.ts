/**
 * How a price list changes the versions of one versioned rule (a mapping's identity, a script's
 * name) from a time on (docs/price-list.md §3). Shared by the modules' price-list sections: they
 * say what "the same rule" means and what each step writes.
 */
import { EventLoopTurns } from '../../kernel/turns.js';

/** A stored version: live, its `end` null or after the effective time. */
export interface StoredVersion {
  start: Date;
  end: Date | null;
}

/** A document's version: `start` absent means "in force from the effective time". */
export interface WantedVersion {
  start: Date | null;
  end: Date | null;
}

/** What a module does at each step of {@link planVersions}. */
export interface VersionSteps<Stored extends StoredVersion, Wanted extends WantedVersion> {
  /** Whether `wanted` says what `stored` says, `end` aside. */
  same(stored: Stored, wanted: Wanted): boolean;
  /** `stored` goes on as it is (its `end` may move: compare them). */
  keep(stored: Stored, wanted: Wanted): void;
  /** A new version starting at `start`; it replaces `stored` when there is one. */
  add(wanted: Wanted, start: Date, stored: Stored | undefined): void;
  /** `stored` ends at the effective time. */
  end(stored: Stored): void;
  /** `stored` never started by the effective time: it is deleted. */
  remove(stored: Stored): void;
}

/**
 * Plans one rule's versions: the document's version in force at `effectiveAt` against the stored
 * one in force then, then the scheduled ones matched by start. Document versions over by then are
 * ignored (they describe the past); stored ones the document does not list are ended (or deleted
 * when not yet started).
 */
export function planVersions<Stored extends StoredVersion, Wanted extends WantedVersion>(
  wanted: readonly Wanted[],
  stored: readonly Stored[],
  effectiveAt: Date,
  steps: VersionSteps<Stored, Wanted>,
): void {
  // Plain loops, no intermediate arrays: a price list runs this once per rule.
  const at = effectiveAt.getTime();
  let wantedNow: Wanted | undefined;
  for (const rule of wanted) {
    if (wantedNow === undefined && isCurrent(rule, at) && (rule.start === null || rule.start.getTime() <= at)) wantedNow = rule;
  }
  let storedNow: Stored | undefined;
  let scheduled: Map<number, Stored> | undefined;
  for (const rule of stored) {
    if (rule.start.getTime() > at) (scheduled ??= new Map()).set(rule.start.getTime(), rule);
    else if (storedNow === undefined) storedNow = rule;
    else endOrRemove(rule, effectiveAt, steps);
  }
  if (wantedNow) continueWith(wantedNow, storedNow, effectiveAt, steps);
  else if (storedNow) endOrRemove(storedNow, effectiveAt, steps);
  for (const rule of wanted) {
    if (rule === wantedNow || rule.start === null || !isCurrent(rule, at)) continue;
    const match = scheduled?.get(rule.start.getTime());
    scheduled?.delete(rule.start.getTime());
    continueWith(rule, match, rule.start, steps);
  }
  if (scheduled) for (const rule of scheduled.values()) steps.remove(rule);
}

/** Whether a document version is still valid at `at` (one over by then describes the past). */
function isCurrent(rule: WantedVersion, at: number): boolean {
  return rule.end === null || rule.end.getTime() > at;
}

function continueWith<Stored extends StoredVersion, Wanted extends WantedVersion>(
  wanted: Wanted,
  stored: Stored | undefined,
  start: Date,
  steps: VersionSteps<Stored, Wanted>,
): void {
  if (stored && steps.same(stored, wanted)) steps.keep(stored, wanted);
  else steps.add(wanted, start, stored);
}

function endOrRemove<Stored extends StoredVersion>(stored: Stored, effectiveAt: Date, steps: VersionSteps<Stored, WantedVersion>): void {
  if (stored.start.getTime() >= effectiveAt.getTime()) steps.remove(stored);
  else steps.end(stored);
}

/** Whether two times are the same (null: never). */
export function sameTime(left: Date | null, right: Date | null): boolean {
  return left === null || right === null ? left === right : left.getTime() === right.getTime();
}

/** A name given to two versions valid at the same time: reported at `path`. */
export interface NamedValidity<Path> {
  name: string;
  start: Date;
  end: Date | null;
  path: Path;
}

/**
 * The entries whose name an earlier entry, valid at the same time, has (names are shared by
 * versions only). The event loop turns every few thousand entries (kernel/turns.ts).
 */
export async function namesInUseTwice<Path>(entries: readonly NamedValidity<Path>[]): Promise<NamedValidity<Path>[]> {
  const turns = new EventLoopTurns();
  const byName = new Map<string, NamedValidity<Path>[]>();
  for (const entry of entries) {
    await turns.step();
    const named = byName.get(entry.name);
    if (named) named.push(entry);
    else byName.set(entry.name, [entry]);
  }
  const clashes: NamedValidity<Path>[] = [];
  for (const named of byName.values()) {
    await turns.step();
    named.sort((left, right) => left.start.getTime() - right.start.getTime());
    for (let index = 1; index < named.length; index += 1) {
      const previous = named[index - 1];
      if (previous.end === null || previous.end.getTime() > named[index].start.getTime()) clashes.push(named[index]);
    }
  }
  return clashes;
}
