/**
 * Turns every error into CloudKitty's WSME fault body
 * `{"faultcode": "Client"|"Server", "faultstring": "<message>", "debuginfo": null}` (with
 * `Retry-After: {n}` for a TariffError carrying a numeric `retryAfterSeconds`), and answers
 * unknown routes with 404 and known routes called with the wrong method with 405.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { BadRequestError, TariffError, invalidInput } from '../kernel/errors.js';
import { classifyDatabaseError } from '../database/errors.js';
import { recordFault, type RecordedFault } from './request-log.js';

/** The WSME fault body. */
export interface Fault {
  faultcode: 'Client' | 'Server';
  faultstring: string;
  debuginfo: null;
}

/** Builds the fault body for a status and message. */
export function faultBody(status: number, message: string): Fault {
  return { faultcode: status < 500 ? 'Client' : 'Server', faultstring: message, debuginfo: null };
}

/**
 * Sends a fault; used by the handlers below and by plugins that answer early. Its message goes
 * into the request's access-log line (request-log.ts), with `logged`'s error and level when given.
 */
export function sendFault(reply: FastifyReply, status: number, message: string, logged: Omit<RecordedFault, 'message'> = {}): FastifyReply {
  recordFault(reply, { message, ...logged });
  return reply.code(status).type('application/json; charset=utf-8').send(faultBody(status, message));
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  parentSchema?: { enum?: unknown[]; maxLength?: number; minLength?: number; 'x-format'?: string };
}

/** Route config key: the WSME argument name used in `Unknown attribute for argument {name}`. */
export interface FaultRouteConfig {
  bodyName?: string;
}

const JSON_TYPE_NAMES: Record<string, string> = {
  string: 'str',
  number: 'float',
  integer: 'int',
  boolean: 'bool',
  object: 'dict',
  array: 'list',
  null: 'None',
};

function jsonTypeName(value: unknown): string {
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return JSON_TYPE_NAMES[typeof value] ?? typeof value;
}

/**
 * Words one JSON-schema validation failure the way CloudKitty (WSME) does, naming the attribute
 * and the offending value.
 */
export function validationMessage(error: AjvError, context: string, bodyName: string): BadRequestError {
  const attribute = error.instancePath.split('/').filter(Boolean).pop();
  const data = error.data;
  const schema = error.parentSchema ?? {};
  switch (error.keyword) {
    case 'required':
      return invalidInput(String(error.params.missingProperty), undefined, 'Mandatory field missing.');
    case 'additionalProperties':
      return context === 'body'
        ? new BadRequestError(`Unknown attribute for argument ${bodyName}: ${String(error.params.additionalProperty)}`)
        : new BadRequestError(`Unknown argument: "${String(error.params.additionalProperty)}"`);
    case 'type': {
      if (!attribute) return new BadRequestError(`Invalid input for argument ${bodyName}: the request body must be a JSON object.`);
      const expected = String(error.params.type)
        .split(',')
        .map((type) => JSON_TYPE_NAMES[type] ?? type)
        .join(' or ');
      return invalidInput(attribute, data, `Wrong type. Expected '${expected}', got '${jsonTypeName(data)}'`);
    }
    case 'enum':
      return invalidInput(attribute ?? bodyName, data, `Value should be one of: ${(schema.enum ?? []).join(', ')}`);
    case 'maxLength':
      return invalidInput(attribute ?? bodyName, data, `Value should have a maximum character requirement of ${schema.maxLength}`);
    case 'minLength':
      return invalidInput(attribute ?? bodyName, data, `Value should have a minimum character requirement of ${schema.minLength}`);
    case 'minimum':
      return invalidInput(attribute ?? bodyName, data, `Value should be greater or equal to ${String(error.params.limit)}`);
    case 'maximum':
      return invalidInput(attribute ?? bodyName, data, `Value should be lower or equal to ${String(error.params.limit)}`);
    case 'pattern':
      return invalidInput(attribute ?? bodyName, data, schema['x-format'] === 'uuid' ? 'Value is not a valid UUID.' : 'Value has an invalid format.');
    default:
      return invalidInput(attribute ?? bodyName, data, `Invalid value (${error.keyword}).`);
  }
}

/** Known route patterns by method, to tell 405 from 404. */
interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * Installs the error handler, the not-found/method-not-allowed handler and the route registry
 * behind them. Call before routes are registered.
 */
export function installFaultHandling(app: FastifyInstance, options: { unknownRouteGuard?: preHandlerHookHandler } = {}): void {
  const known = new Map<string, KnownRoute>();
  app.addHook('onRoute', (route) => {
    const url = route.url.replace(/\/+$/, '') || '/';
    const source = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
    const entry = known.get(url) ?? { pattern: new RegExp(`^${source}/?$`), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    known.set(url, entry);
  });

  // Keystone mode: an unknown route is answered only to a caller with a valid token.
  app.setNotFoundHandler({ preHandler: options.unknownRouteGuard }, (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allowed = new Set<string>();
    for (const entry of known.values()) {
      if (entry.pattern.test(path)) for (const method of entry.methods) allowed.add(method);
    }
    if (allowed.size > 0 && !allowed.has(request.method)) {
      reply.header('Allow', [...allowed].sort().join(', '));
      return sendFault(reply, 405, `Method ${request.method} is not allowed on ${path}`);
    }
    return sendFault(reply, 404, `Resource not found: ${request.method} ${path}`);
  });

  // Every fault's message, and a server fault's error with its stack, is logged on the request's
  // one access-log line (request-log.ts), with its request id.
  app.setErrorHandler((error: FastifyError & { validation?: AjvError[]; validationContext?: string }, request, reply) => {
    if (error instanceof TariffError) {
      // A 503 that knows when to come back (the sandbox's queue is full) says so; shedding load
      // is expected under load, so it is logged as a warning without a stack.
      const retryAfterSeconds = (error as TariffError & { retryAfterSeconds?: unknown }).retryAfterSeconds;
      let logged: Omit<RecordedFault, 'message'> = {};
      if (typeof retryAfterSeconds === 'number') {
        reply.header('Retry-After', String(retryAfterSeconds));
        logged = { level: 'warn' };
      } else if (error.status >= 500) {
        logged = { error };
      }
      if (error.faultDetails !== undefined) {
        recordFault(reply, { message: error.message, ...logged });
        return reply
          .code(error.status)
          .type('application/json; charset=utf-8')
          .send({ ...faultBody(error.status, error.message), ...error.faultDetails });
      }
      return sendFault(reply, error.status, error.message, logged);
    }
    if (error.validation && error.validation.length > 0) {
      const bodyName = (request.routeOptions.config as FaultRouteConfig).bodyName ?? 'body';
      const fault = validationMessage(error.validation[0], error.validationContext ?? 'body', bodyName);
      return sendFault(reply, 400, fault.message);
    }
    const classified = classifyDatabaseError(error);
    if (classified instanceof TariffError) {
      return sendFault(reply, classified.status, classified.message, classified.status >= 500 ? { error, level: 'warn' } : {});
    }
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendFault(reply, 415, `Unknown mimetype: ${request.headers['content-type'] ?? 'none'}; send application/json`);
    }
    if (status >= 400 && status < 500) return sendFault(reply, status, error.message);
    return sendFault(reply, 500, 'The server could not complete the request; the error is in its log.', { error, level: 'error' });
  });
}
