/** PyScripts request validation (api.md §5-§6), pure: create bodies, update plans, conflicts, checksums. */
import { createHash } from 'node:crypto';
import type { ConflictError } from '../../kernel/errors.js';
import { formatApiDateTime, parseDateTime } from '../common/datetime.js';
import {
  checkNewValidity,
  checkValidityUpdate,
  intervalsOverlap,
  validityOf,
  type RunningRuleUpdates,
  type UpdateOutcome,
  type Validity,
} from '../common/versioning.js';
import { diffUpdate, lowercaseUuid, VERSIONED_RULE_ATTRIBUTES, type AttributeRule } from '../common/update.js';
import { scriptExists } from './errors.js';
import type { Script, ScriptCreateBody, ScriptUpdateBody } from './schemas.js';

/** A script to create, validated. */
export interface ScriptDraft extends Validity {
  name: string;
  /** Python source text. */
  data: string;
  description: string | null;
}

/** Lowercase hex SHA-512 of the UTF-8 source (CloudKitty compat: over the uncompressed bytes). */
export function scriptChecksum(data: string): string {
  return createHash('sha512').update(data, 'utf8').digest('hex');
}

/**
 * Validates a script create body: dates (start in the past unless `force`, end before start).
 * `start` defaults to the request time (fix: CloudKitty used the process start time).
 *
 * @throws BadRequestError with CloudKitty's messages.
 */
export function parseScriptCreate(body: ScriptCreateBody, now: Date, force: boolean): ScriptDraft {
  const start = body.start != null ? parseDateTime(body.start, 'start', 'start') : now;
  const end = body.end != null ? parseDateTime(body.end, 'end', 'end') : null;
  checkNewValidity({ start, end }, now, { startGiven: body.start != null, force });
  return { name: body.name, data: body.data ?? '', description: body.description ?? null, start, end };
}

/** A live script with a given name, as the conflict test sees it. */
export interface ScriptVersion extends Validity {
  scriptId: string;
}

/**
 * The 409 for a script whose name a live script with an intersecting validity interval has
 * (half-open, see `intervalsOverlap`), or null. A name is shared by a script's versions: a script
 * may take the name of one whose interval it does not intersect (fix: CloudKitty refused a new
 * version with the name of the ended one). The script itself is never a clash.
 */
export function findScriptConflict(candidate: ScriptVersion & { name: string }, namesakes: readonly ScriptVersion[]): ConflictError | null {
  const clash = namesakes.find((other) => other.scriptId !== candidate.scriptId && intervalsOverlap(candidate, other));
  return clash ? scriptExists(candidate.name, clash.scriptId) : null;
}

/**
 * Plans a script update (api.md §6): `data`, `description`, `start`, `end` may change while the
 * script has not started; a running script may only change `end`. An echoed `checksum` is
 * accepted when it matches the stored data or the new data.
 *
 * @throws BadRequestError with CloudKitty's messages.
 */
export function planScriptUpdate(
  stored: Required<Script>,
  body: ScriptUpdateBody,
  now: Date,
  runningRuleUpdates: RunningRuleUpdates = 'refuse',
): { changes: Partial<Script>; result: Required<Script>; intervalChanged: boolean; outcome: UpdateOutcome } {
  const newChecksum = typeof body.data === 'string' ? scriptChecksum(body.data) : stored.checksum;
  const attributes: Record<string, AttributeRule> = {
    ...VERSIONED_RULE_ATTRIBUTES,
    script_id: { mutable: false, normalize: lowercaseUuid },
    data: { mutable: true },
    checksum: { mutable: false, normalize: (value) => (value === newChecksum ? stored.checksum : value) },
  };
  const { changes, changed } = diffUpdate(stored, body, attributes);
  const outcome = checkValidityUpdate(validityOf(stored), validityOf({ ...stored, ...changes }), changed, now, runningRuleUpdates);
  if (outcome === 'new-version') {
    changes.start = formatApiDateTime(now);
    changed.push('start');
  }
  const result = { ...stored, ...changes } as Required<Script>;
  if ('data' in changes) result.checksum = newChecksum;
  return { changes: changes, result, intervalChanged: changed.includes('start') || changed.includes('end'), outcome };
}
