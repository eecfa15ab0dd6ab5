/**
 * Datetimes on CloudKitty's v1 routes as CloudKitty master writes and reads them (api.md §1,
 * issue 23 class 3): naive ISO text, `3000-01-01T23:59:59`, holding wall time in the zone of
 * CloudKitty's hosts (`TARIFF_CLOUDKITTY_TIMEZONE`), since its API answers the naive columns with
 * `isoformat()` and reads a naive input the same way. Master's tempest compares the text it sent
 * with the text it gets back.
 *
 * Tariff's rules keep instants; the conversion happens here, at the wire, and only on v1:
 * - in: a naive `start` / `end` / `created_at` / `deleted` (body) or `start` / `end` (query) is
 *   that zone's wall time (in UTC, the default, it already means what the rules read); a text
 *   with an offset is taken as it is;
 * - out: those attributes of the answered objects (or of every object of a collection) become
 *   the zone's naive wall text, unless the request sends `X-Tariff-Datetimes: offset` (Tariff's
 *   console does), which keeps UTC text with `+00:00`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TimeZone } from '../kernel/time-zone.js';

/** The header by which a client asks for explicit offsets instead of CloudKitty's naive text. */
export const DATETIMES_HEADER = 'x-tariff-datetimes';

const DATETIME_ATTRIBUTES = ['start', 'end', 'created_at', 'deleted'] as const;
const QUERY_DATETIMES = ['start', 'end'] as const;
/** A date, with or without a time, without an offset (`2026-12-01`, `2026-12-01T10:00`, `2026-12-01 10:00:00.5`). */
const NAIVE_DATETIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?$/;
/** UTC text as the rules answer it: `2026-12-01T10:00:00+00:00`. */
const UTC_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

type Members = Record<string, unknown>;

function isMembers(value: unknown): value is Members {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `+HH:MM` for an offset in milliseconds east of UTC. */
function offsetText(offsetMs: number): string {
  const minutes = Math.abs(offsetMs) / 60_000;
  const sign = offsetMs < 0 ? '-' : '+';
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * A naive text read as `zone`'s wall time, written with its offset; any other text unchanged. A
 * date alone is completed as the rules complete it (rating/common/datetime.ts): `end` at 23:59:59,
 * the others at 00:00:00.
 */
function withZoneOffset(value: unknown, zone: TimeZone, attribute: string): unknown {
  if (typeof value !== 'string') return value;
  const match = NAIVE_DATETIME.exec(value.trim());
  if (!match) return value;
  const [, date, hours, minutes, seconds] = match;
  const time = hours === undefined ? (attribute === 'end' ? '23:59:59' : '00:00:00') : `${hours}:${minutes}:${seconds ?? '00'}`;
  const wallMs = Date.parse(`${date}T${time}Z`);
  if (Number.isNaN(wallMs)) return value;
  return `${date}T${time}${offsetText(wallMs - zone.instantOf(wallMs))}`;
}

/** UTC text with `+00:00` as `zone`'s naive wall text; anything else unchanged. */
function naiveWallText(value: unknown, zone: TimeZone): unknown {
  if (typeof value !== 'string' || value.length !== 25 || !value.endsWith('+00:00') || !UTC_TEXT.test(value)) return value;
  if (zone.isUtc) return value.slice(0, 19);
  return new Date(zone.wallClockAt(Date.parse(value))).toISOString().slice(0, 19);
}

function convertMembers(members: Members, names: readonly string[], convert: (value: unknown, name: string) => unknown): void {
  for (const name of names) if (name in members) members[name] = convert(members[name], name);
}

/** A copy of `members` with its datetime attributes as naive wall text (answers are never changed in place: a repository may hold them). */
function naiveCopy(members: Members, zone: TimeZone): Members {
  const copy = { ...members };
  convertMembers(copy, DATETIME_ATTRIBUTES, (value) => naiveWallText(value, zone));
  return copy;
}

/**
 * The answer with its datetimes converted: the object itself and each object of its collections.
 * A read's objects are built for its request alone by the repositories: converted in place
 * (copying 10,000 of a list cost a fifth of its CPU). A write's object may also be the audit
 * trail's: copied.
 */
function convertAnswer(payload: unknown, zone: TimeZone, inPlace: boolean): unknown {
  if (!isMembers(payload)) return payload;
  const convert = (value: unknown) => naiveWallText(value, zone);
  const answer = inPlace ? payload : naiveCopy(payload, zone);
  if (inPlace) convertMembers(answer, DATETIME_ATTRIBUTES, convert);
  for (const value of Object.values(answer)) {
    if (Array.isArray(value)) for (const item of value) if (isMembers(item)) convertMembers(item, DATETIME_ATTRIBUTES, convert);
  }
  return answer;
}

function wantsOffsets(request: FastifyRequest): boolean {
  return request.headers[DATETIMES_HEADER] === 'offset';
}

/**
 * Installs the conversion on the routes of `app` (the v1 plugin): naive input read in `zone`
 * before validation, answers written as naive wall text before serialization.
 */
export function installCloudKittyDateTimes(app: FastifyInstance, zone: TimeZone): void {
  if (!zone.isUtc) {
    app.addHook('preValidation', (request, _reply, done) => {
      if (isMembers(request.body)) convertMembers(request.body, DATETIME_ATTRIBUTES, (value, name) => withZoneOffset(value, zone, name));
      if (isMembers(request.query)) convertMembers(request.query, QUERY_DATETIMES, (value, name) => withZoneOffset(value, zone, name));
      done();
    });
  }
  app.addHook('preSerialization', (request, _reply, payload, done) => {
    done(null, wantsOffsets(request) ? payload : convertAnswer(payload, zone, request.method === 'GET'));
  });
}
