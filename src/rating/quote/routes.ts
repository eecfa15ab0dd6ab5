/**
 * Quote routes (rating.md §3): `POST /v1/rating/quote` (CloudKitty's: resources → a bare JSON
 * number) and `POST /v2/rating/quote` (whole dataframes, tenant, rating time, explain). Policy
 * `rating:quote` is open. Bodies may be up to `quoteBodyLimitBytes` (32 MiB by default); each is
 * admitted by the bytes-in-flight budget (`admission.ts`) before it is read, and a v2 answer is
 * bounded and written with back-pressure (`answer.ts`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import { Type } from 'typebox';
import { faultResponses } from '../../http/fault-schema.js';
import { parseDateTime } from '../common/datetime.js';
import type { RatingSnapshotCache } from './snapshot.js';
import { inputDecimal } from '../common/quote-decimal.js';
import { priceUsage } from './pricing.js';
import { Period, QuoteV1Body, QuoteV2Body, type Usage } from './schemas.js';
import { hasNumberText } from '../../http/json-number-text.js';
import { refuseUnreadableNumbers, V1_NUMBER_TEXT_MEMBERS, V2_NUMBER_TEXT_MEMBERS } from './desc-numbers.js';
import type { TariffMetrics } from '../../kernel/metrics.js';
import { QuoteBusyFault, type QuoteAdmission } from './admission.js';
import { AnswerTooLargeError, STREAM_FROM_BYTES, answerStream, answerText, checkAnswerSize, type AnswerLimits } from './answer.js';

/** The faults of a quote: bad input, Keystone, body size and type, a failing script, no database or sandbox. */
const QUOTE_FAULTS = faultResponses(400, 401, 403, 413, 415, 422, 503);

/**
 * v1's answer: the total as a bare JSON number. Both answers are sent as ready JSON text (typed
 * `string`), never serialized with these schemas: they are for the OpenAPI document.
 */
const QuoteV1Answer = Type.Unsafe<string>(
  Type.Number({
    description: 'The total price, a bare JSON number',
  }),
);

/** v2's answer: the total, the period and the rated dataframes. */
const QuoteV2Answer = Type.Unsafe<string>(
  Type.Object({
    total: Type.String(),
    period: Period,
    usage: Type.Record(Type.String(), Type.Array(Type.Unknown())),
  }),
);

/** Options of the quote route plugins. */
export interface QuoteRouteOptions {
  snapshots: RatingSnapshotCache;
  /** Largest quote body, in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`). */
  bodyLimit: number;
  /** Quantities must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
  /** Hide from the OpenAPI document (the `/v1/billing` alias). */
  hidden: boolean;
  /** Where priced quotes are counted (`GET /metrics`); absent when metrics are off. */
  metrics?: TariffMetrics;
  /** The quote bytes in flight, shared by every quote route of the app. */
  admission: QuoteAdmission;
  /** The bounds of a v2 answer. */
  answerLimits: AnswerLimits;
}

/** The points of a v2 quote's usage. */
function pointCount(usage: Usage): number {
  let count = 0;
  for (const service in usage) count += usage[service].length;
  return count;
}

const HOUR_MS = 3_600_000;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A v1 resource's desc as a point: nested (`{"metadata": {...}, "groupby": {...}}`) or flat
 * (fix: CloudKitty ignored a flat desc, so field rules never matched).
 */
function descOf(desc: Record<string, unknown> | undefined): { groupby: Record<string, unknown>; metadata: Record<string, unknown> } {
  if (!desc) return { groupby: {}, metadata: {} };
  if (isObject(desc.metadata) || isObject(desc.groupby)) {
    return { metadata: isObject(desc.metadata) ? desc.metadata : {}, groupby: isObject(desc.groupby) ? desc.groupby : {} };
  }
  return { metadata: desc, groupby: {} };
}

/**
 * Who asks for a quote, for modules that share a resource fairly between callers (the PyScripts
 * sandbox shares its workers between these): the project of the caller's Keystone token (its user
 * for a token without a project), else (noauth) the v2 quote's `tenant_id`, else the client's address.
 */
function callerOf(request: FastifyRequest, tenantId?: string | null): string {
  const identity = request.identity;
  if (identity) return identity.projectId ? `project:${identity.projectId}` : `user:${identity.userId}`;
  return tenantId ? `tenant:${tenantId}` : `address:${request.ip}`;
}

/** The body size a quote is charged and its answer bounded by: declared, else (chunked) the route's limit. */
function requestBytesOf(request: FastifyRequest, bodyLimit: number): number {
  const declared = Number(request.headers['content-length']);
  if (declared > 0) return declared;
  return request.headers['transfer-encoding'] === undefined ? 0 : bodyLimit;
}

/**
 * A `preParsing` hook (after authentication and the body limit's own): charges the quote to the
 * {@link QuoteAdmission} until its connection's answer is over, or refuses it with 503 before its
 * body is read (the body is then read and dropped, the connection kept). A body over the limit is
 * not charged: it is read and dropped, then refused with 413.
 */
function admissionHook(
  admission: QuoteAdmission,
  bodyLimit: number,
  metrics: TariffMetrics | undefined,
): (request: FastifyRequest, reply: FastifyReply, payload: RequestPayload, done: (error: Error | null, payload?: RequestPayload) => void) => void {
  return (request, reply, payload, done) => {
    const bytes = requestBytesOf(request, bodyLimit);
    if (bytes === 0 || bytes > bodyLimit) return done(null, payload);
    let release: () => void;
    try {
      release = admission.admit(callerOf(request), bytes);
    } catch (error) {
      if (error instanceof QuoteBusyFault) metrics?.quoteRefused(error.reason);
      // The body is already piped into the body limit's stream, so Node would not drop it: read
      // and dropped here (up to the drain limit), the client reads the 503 and the connection
      // serves its next request.
      payload.on('error', () => undefined);
      payload.resume();
      return done(error as Error);
    }
    reply.raw.once('close', release);
    done(null, payload);
  };
}

/** `POST /v1/rating/quote`. */
export const quoteRoutesV1: FastifyPluginAsyncTypebox<QuoteRouteOptions> = async (
  app,
  { snapshots, bodyLimit, maxDecimalExponent, hidden, metrics, admission },
) => {
  // This plugin's context holds the one quote route: the hook is that route's.
  app.addHook('preParsing', admissionHook(admission, bodyLimit, metrics));
  app.post(
    '/quote',
    {
      config: { bodyName: 'res_data', maxBodyBytes: bodyLimit, numberTextUnder: V1_NUMBER_TEXT_MEMBERS },
      schema: {
        hide: hidden,
        tags: ['quote'],
        summary: 'Price resources with the enabled modules (total as a bare number)',
        body: QuoteV1Body,
        response: {
          200: QuoteV1Answer,
          ...QUOTE_FAULTS,
        },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      // Service names are caller text (`constructor`, `__proto__`): a null-prototype object.
      const usage: Usage = Object.create(null) as Usage;
      const checkNumbers = hasNumberText(request.body);
      for (const [index, resource] of request.body.resources.entries()) {
        inputDecimal(resource.volume, `resources[${index}].volume`, maxDecimalExponent);
        const desc = descOf(resource.desc);
        if (checkNumbers) {
          const nested = desc.metadata !== resource.desc;
          refuseUnreadableNumbers(desc.metadata, nested ? `resources[${index}].desc.metadata` : `resources[${index}].desc`);
          refuseUnreadableNumbers(desc.groupby, `resources[${index}].desc.groupby`);
        }
        (usage[resource.service] ??= []).push({ vol: { unit: 'undefined', qty: resource.volume }, ...desc });
      }
      const now = new Date();
      const end = new Date(now.getTime() + HOUR_MS);
      const priced = await priceUsage(await snapshots.current(), usage, {
        at: now.getTime(),
        tenantId: null,
        caller: callerOf(request),
        explain: false,
        period: { begin: now.toISOString(), end: end.toISOString() },
        maxDecimalExponent,
      });
      metrics?.quotePriced(request.body.resources.length, (performance.now() - started) / 1000);
      return reply.type('application/json; charset=utf-8').send(priced.total.toString());
    },
  );
};

/** `POST /v2/rating/quote`. */
export const quoteRoutesV2: FastifyPluginAsyncTypebox<QuoteRouteOptions> = async (
  app,
  { snapshots, bodyLimit, maxDecimalExponent, hidden, metrics, admission, answerLimits },
) => {
  // This plugin's context holds the one quote route: the hook is that route's.
  app.addHook('preParsing', admissionHook(admission, bodyLimit, metrics));
  app.post(
    '/quote',
    {
      config: { bodyName: 'quote', maxBodyBytes: bodyLimit, numberTextUnder: V2_NUMBER_TEXT_MEMBERS },
      schema: {
        hide: hidden,
        tags: ['quote'],
        summary: 'Price whole dataframes for a tenant at a time, optionally explained',
        body: QuoteV2Body,
        response: {
          200: QuoteV2Answer,
          ...QUOTE_FAULTS,
        },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      const body = request.body;
      if (hasNumberText(body)) {
        for (const [service, points] of Object.entries(body.usage)) {
          for (const [index, point] of points.entries()) {
            refuseUnreadableNumbers(point.metadata, `usage.${service}[${index}].metadata`);
            refuseUnreadableNumbers(point.groupby, `usage.${service}[${index}].groupby`);
          }
        }
      }
      const begin = body.period ? parseDateTime(body.period.begin, 'period.begin') : undefined;
      // Both bounds are the caller's: a bad `end` is a 400 here, not a sandbox failure later.
      if (body.period) parseDateTime(body.period.end, 'period.end');
      const at = body.at !== undefined ? parseDateTime(body.at, 'at') : (begin ?? new Date());
      const period = body.period ?? { begin: at.toISOString(), end: new Date(at.getTime() + HOUR_MS).toISOString() };
      const explain = body.explain ?? false;
      const priced = await priceUsage(await snapshots.current(), body.usage, {
        at: at.getTime(),
        tenantId: body.tenant_id ?? null,
        caller: callerOf(request, body.tenant_id),
        explain,
        period,
        maxDecimalExponent,
      });
      let estimated: number;
      try {
        estimated = checkAnswerSize(requestBytesOf(request, bodyLimit), priced.dataframe, answerLimits);
      } catch (error) {
        if (error instanceof AnswerTooLargeError) metrics?.quoteRefused('answer_size');
        throw error;
      }
      metrics?.quotePriced(pointCount(body.usage), (performance.now() - started) / 1000);
      // No response schema to walk: the answer's JSON text, whole when small, else streamed (Fastify
      // pipes a stream with back-pressure; the schema's `string` type is the OpenAPI document's).
      reply.type('application/json; charset=utf-8');
      if (estimated < STREAM_FROM_BYTES) return reply.send(answerText(priced, explain));
      return reply.send(answerStream(priced, explain) as unknown as string);
    },
  );
};
