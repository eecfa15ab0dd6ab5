/**
 * What handlers read from a request the way CloudKitty's client sends it: arguments from the path,
 * the query string or the JSON body; the acting user; absolute `Location` URLs.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError } from '../kernel/errors.js';
import { isUuid } from '../kernel/ids.js';
import { wholeSeconds } from '../kernel/time.js';
import { codePointLength, COLUMN_WIDTH } from '../database/column-widths.js';

type Bag = Record<string, unknown> | undefined;

/** 400 for one argument given different values in two places (CloudKitty's words, and the values). */
function conflictingArgument(name: string, first: unknown, second: unknown): BadRequestError {
  return new BadRequestError(`Parameter ${name} was given several times with different values: '${String(first)}' and '${String(second)}'`);
}

/**
 * One handler argument, looked up in the path, then the query string, then the JSON body
 * (CloudKitty compat: the client sends `DELETE H/mappings/` with `{"mapping_id": ...}` in the body).
 *
 * @returns the argument's text, or `undefined` when no location carries it.
 * @throws BadRequestError when the value is not text, or when path and query disagree.
 */
export function optionalArgument(request: FastifyRequest, name: string): string | undefined {
  const fromPath = (request.params as Bag)?.[name];
  const fromQuery = (request.query as Bag)?.[name];
  const body = request.body;
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Bag)?.[name] : undefined;
  if (fromPath !== undefined && fromQuery !== undefined && fromPath !== fromQuery) {
    throw conflictingArgument(name, fromPath, fromQuery);
  }
  const value = fromPath ?? fromQuery ?? fromBody;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new BadRequestError(`Invalid input for field/attribute ${name}. Value: '${String(value)}'. Wrong type. Expected 'str'`);
  }
  return value;
}

/** An argument's value from a JSON body as the query string would carry it. */
function argumentText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  throw new BadRequestError(`Invalid input for field/attribute ${name}. Value: '${JSON.stringify(value)}'. Wrong type.`);
}

/**
 * CloudKitty compat: WSME takes a handler's arguments from the path, the query string and the JSON
 * body alike, a GET's included (tempest sends `GET H/fields/` with `{"service_id": …}`, and
 * `GET H/mappings/` with its filters). The body's members are merged into `request.query`, so the
 * route's query schema checks them (an unknown one is a 400 naming it) and the handler reads one
 * set of arguments. JSON `true` / `false` / numbers become their text (`true`), `null` is absent
 * (WSME's `None`).
 *
 * Precedence does not arise: an argument may come from any of the three places, and when two give
 * it their values must be the same text (fix: WSME refused even equal copies).
 *
 * @throws BadRequestError `Request must be a JSON dict` for a body that is not an object;
 *   `Parameter {name} was given several times with different values: …` for a conflict; a wrong
 *   type for an object or array value.
 */
export function mergeBodyArguments(request: FastifyRequest): void {
  const body = request.body;
  if (body === undefined) return;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('Request must be a JSON dict');
  const query = request.query as Record<string, unknown>;
  const params = request.params as Bag;
  for (const [name, value] of Object.entries(body)) {
    if (value === null) continue;
    const text = argumentText(name, value);
    const fromPath = params?.[name];
    const given = fromPath ?? query[name];
    if (given !== undefined && given !== text) {
      throw conflictingArgument(name, given, text);
    }
    if (fromPath === undefined) query[name] = text;
  }
}

/**
 * Route hook (`onRequest`) of the rating API's routes: a GET without a body (no `Content-Length`
 * above 0, no `Transfer-Encoding`) has its `Content-Type` dropped, so Fastify is not asked to
 * parse nothing (the client sends `Content-Type: application/json` on every GET; parsing an empty
 * body cost about a tenth of a cheap GET's CPU). Added to the routes when they are registered, so
 * no request looks up its route's options.
 */
export function dropEmptyGetContentType(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  if (request.method === 'GET' && request.headers['transfer-encoding'] === undefined && !(Number(request.headers['content-length']) > 0)) {
    delete request.headers['content-type'];
  }
  done();
}

/**
 * Route hook (`preValidation`, after the app's input checks) of CloudKitty's v1 routes: a GET's
 * body arguments merged into its query ({@link mergeBodyArguments}).
 */
export function mergeGetBodyArguments(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  if (request.method !== 'GET') return done();
  try {
    mergeBodyArguments(request);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

/**
 * Like {@link optionalArgument} but required.
 *
 * @throws BadRequestError `Missing argument: "{name}"` (WSME's wording) when absent.
 */
export function requiredArgument(request: FastifyRequest, name: string): string {
  const value = optionalArgument(request, name);
  if (value === undefined) throw new BadRequestError(`Missing argument: "${name}"`);
  return value;
}

/** CloudKitty compat: the width of the audit columns `created_by`, `updated_by`, `deleted_by`. */
const USER_ID_WIDTH = COLUMN_WIDTH.audit;

/**
 * The acting user recorded in `created_by` / `updated_by` / `deleted_by`: the validated token's
 * user id in Keystone mode (fix: CloudKitty asked Keystone again on every write); in noauth mode
 * the `X-User-Id` header read as UTF-8, else `unknown` (CloudKitty compat). Called by the writes
 * that record it, before they change anything.
 *
 * @throws BadRequestError when the header's bytes are not UTF-8 (Node hands headers over as
 *   Latin-1: without the check they would be stored altered), or when the id is longer than the
 *   audit columns' 32 characters (fix: never truncated, so the record names the real user).
 */
export function actingUser(request: FastifyRequest): string {
  return withinAuditWidth(readActingUser(request, 'unknown'));
}

/** The acting user the audit trail records when noauth mode names none (issue 26): never CloudKitty's `unknown`. */
export const ANONYMOUS_USER = 'anonymous';

/**
 * The acting user of the audit trail (`GET /v2/rating/changes`, api.md §9): as {@link actingUser},
 * but `anonymous` in noauth mode without an `X-User-Id` (fix, issue 26: every change read
 * `unknown`, which looked like a fault rather than "nobody said").
 *
 * @throws BadRequestError as {@link actingUser}.
 */
export function auditedUser(request: FastifyRequest): string {
  return withinAuditWidth(readActingUser(request, ANONYMOUS_USER));
}

function readActingUser(request: FastifyRequest, nobody: string): string {
  if (request.identity) return request.identity.userId;
  const header = request.headers['x-user-id'];
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) return nobody;
  const bytes = Buffer.from(raw, 'latin1');
  if (!isUtf8(bytes)) throw new BadRequestError('Invalid input in header X-User-Id: not valid UTF-8 text.');
  return bytes.toString('utf8').trim() || nobody;
}

/** @throws BadRequestError when `user` is longer than {@link USER_ID_WIDTH} characters (code points). */
function withinAuditWidth(user: string): string {
  const length = codePointLength(user);
  if (length > USER_ID_WIDTH) {
    throw new BadRequestError(
      `The acting user id is ${length} characters long; CloudKitty's audit columns (created_by, updated_by, deleted_by) hold ${USER_ID_WIDTH}.`,
    );
  }
  return user;
}

function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0].trim() || undefined;
}

/**
 * Sets an absolute `Location` for the object with this id: the request's path (without query and
 * trailing slash) ending in the id. Honours `X-Forwarded-Proto` and `X-Forwarded-Host`.
 */
export function setLocation(request: FastifyRequest, reply: FastifyReply, id: string): void {
  const scheme = firstHeader(request, 'x-forwarded-proto') ?? request.protocol;
  const host = firstHeader(request, 'x-forwarded-host') ?? request.host;
  let path = request.url.split('?')[0].replace(/\/+$/, '');
  if (!path.endsWith(`/${id}`)) path = `${path}/${id}`;
  reply.header('Location', `${scheme}://${host}${path}`);
}

/**
 * The id of the addressed object, from path, query or body. A text that is not a UUID cannot name
 * anything: it gets the resource's usual 404.
 *
 * @param notFound - builds the resource's 404 for an id.
 * @throws BadRequestError `Missing argument: "{name}"` when absent; the 404 for a non-UUID.
 */
export function resourceId(request: FastifyRequest, name: string, notFound: (id: string) => Error): string {
  const id = requiredArgument(request, name);
  if (!isUuid(id)) throw notFound(id);
  return id.toLowerCase();
}

/** The request time in whole seconds: rules are kept to the second. */
export function requestTime(): Date {
  return wholeSeconds(new Date());
}
