/**
 * `/v2/rating/price_list` (docs/price-list.md §2): the export (`GET`, JSON or YAML), the document's
 * JSON Schema (`GET …/schema`) and the apply (`POST`, a dry run or not). `rating:module_config`
 * guards them in Keystone mode (auth/route-policy.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import jsYaml from 'js-yaml';
import { faultResponses, faultSchema } from '../../http/fault-schema.js';
import { actingUser, requestTime } from '../../http/request.js';
import { changeJournal } from '../../http/change-journal.js';
import { prettyJsonParts, streamedAnswer } from '../../http/streamed-answer.js';
import { BadRequestError, invalidInput } from '../../kernel/errors.js';
import { BulkCollector } from '../../kernel/memory.js';
import { parseDateTime } from '../common/datetime.js';
import { BooleanText, queryBoolean, QueryString } from '../common/schemas.js';
import { JSON_MEDIA_TYPE, YAML_MEDIA_TYPES, type DocumentFormat } from './document-text.js';
import type { PriceList, PriceListDiff } from './price-list.js';

/** What the price-list routes are given. */
export interface PriceListRouteOptions {
  priceList: PriceList;
  /** Called after an apply that wrote changes (the quotes' rules are then stale in this process). */
  onChange: () => void;
  /** Largest document, in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`, the quote's). */
  bodyLimit: number;
  hidden: boolean;
}

const ExportQuery = QueryString({ at: Type.Optional(Type.String({ description: 'ISO 8601; default now' })) });
const ApplyQuery = QueryString({
  dry_run: Type.Optional(BooleanText),
  effective_at: Type.Optional(Type.String({ description: 'ISO 8601; default now; not in the past' })),
  if_revision: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'refuse with 409 unless the revision is this one' })),
  unversioned_now: Type.Optional(BooleanText),
});

const Change = Type.Object({
  action: Type.String({ enum: ['added', 'replaced', 'ended', 'deleted', 'updated', 'created'] }),
  resource: Type.String(),
  path: Type.String(),
  before: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  after: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const Diff = Type.Object({
  revision: Type.Integer(),
  dry_run: Type.Boolean(),
  effective_at: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer()),
  changes: Type.Array(Change),
});
/** The 400 of a document's reading: the fault, and every problem in `problems`. */
export const InvalidDocument = Type.Object(
  {
    ...faultSchema().properties,
    problems: Type.Optional(
      Type.Array(Type.Object({ path: Type.String(), line: Type.Optional(Type.Integer()), column: Type.Optional(Type.Integer()), message: Type.String() })),
    ),
  },
  { description: 'Bad input; a malformed document lists every problem in `problems`, with its path (and line and column)' },
);

/** Diffs of more changes than this are streamed (a change is a few hundred bytes); smaller ones are one string. */
export const STREAM_FROM_CHANGES = 2000;

/**
 * The diff's JSON text, the bytes of `JSON.stringify(diff)`, as small parts (its head, then each
 * change), `counted.chars` adding their lengths as they are made.
 */
function* diffParts(diff: PriceListDiff, counted: { chars: number }): Generator<string> {
  const { changes, ...head } = diff;
  // The members in the order PriceList.diff gives them, `changes` last.
  const text = JSON.stringify(head);
  let part = `${text.slice(0, -1)},"changes":[`;
  for (let index = 0; index < changes.length; index += 1) {
    part += (index === 0 ? '' : ',') + JSON.stringify(changes[index]);
    counted.chars += part.length;
    yield part;
    part = '';
  }
  counted.chars += part.length + 2;
  yield `${part}]}`;
}

/**
 * The export's JSON text, the bytes of `JSON.stringify(document, null, 2)` and a line feed, in
 * parts down to each rule (document → services → service → fields → field → mappings → mapping),
 * `counted.chars` adding their lengths as they are made.
 */
function* exportParts(document: unknown, counted: { chars: number }): Generator<string> {
  for (const part of prettyJsonParts(document, 6)) {
    counted.chars += part.length;
    yield part;
  }
  counted.chars += 1;
  yield '\n';
}

/** The answer's format from `Accept`: YAML when a YAML type is asked for before JSON. */
function answerFormat(request: FastifyRequest): DocumentFormat {
  const accept = (request.headers.accept ?? '').toLowerCase();
  const yaml = Math.min(...YAML_MEDIA_TYPES.map((type) => accept.indexOf(type)).filter((index) => index >= 0));
  const json = accept.indexOf(JSON_MEDIA_TYPE);
  return Number.isFinite(yaml) && (json < 0 || yaml < json) ? 'yaml' : 'json';
}

/** The body's format from `Content-Type` (the parser let only these through). */
function bodyFormat(request: FastifyRequest): DocumentFormat {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === JSON_MEDIA_TYPE ? 'json' : 'yaml';
}

/** A query's datetime (whole seconds, as `parseDateTime` reads them), or undefined. */
function optionalDate(text: string | undefined, attribute: string): Date | undefined {
  return text === undefined ? undefined : parseDateTime(text, attribute);
}

/** The price-list routes, under `/v2/rating`. */
export const priceListRoutes: FastifyPluginAsyncTypebox<PriceListRouteOptions> = async (app, { priceList, onChange, bodyLimit, hidden }) => {
  // After a bulk export or apply was done and answered, give its garbage back (kernel/memory.ts).
  // fix, issue 24: not for what a request declares (a refused or header-only request did no work).
  const collector = new BulkCollector(priceList.limits.bulkCollectionIntervalMs);
  // Characters read and answered, by request (a streamed answer's count grows as it is written).
  const bulkWork = new WeakMap<FastifyRequest, { chars: number }>();
  app.addHook('onResponse', async (request, reply) => {
    const work = bulkWork.get(request);
    if (work !== undefined && reply.statusCode < 300) collector.afterBulkWork(work.chars);
  });
  app.addHook('onClose', async () => collector.close());
  app.get(
    '/price_list',
    {
      schema: {
        hide: hidden,
        tags: ['price list'],
        summary: 'Export the rating configuration as one document (JSON, or YAML for Accept: application/yaml)',
        querystring: ExportQuery,
        response: { 200: Type.Unsafe<string>({ description: 'The price list document (docs/price-list.md §1)' }), ...faultResponses(400, 401, 403, 503) },
      },
    },
    async (request, reply) => {
      const at = optionalDate(request.query.at, 'at') ?? requestTime();
      const document = await priceList.export(at);
      if (answerFormat(request) === 'yaml') {
        const text = jsYaml.dump(document, { lineWidth: -1, noRefs: true });
        bulkWork.set(request, { chars: text.length });
        return reply.type('application/yaml; charset=utf-8').send(text);
      }
      // The JSON text streamed with back-pressure, a rule at a time (fix, issue 24: a large export
      // was one string, made in one go on the event loop and held until the client had read it).
      const counted = { chars: 0 };
      bulkWork.set(request, counted);
      return reply.type('application/json; charset=utf-8').send(streamedAnswer(exportParts(document, counted)) as unknown as string);
    },
  );

  app.get(
    '/price_list/schema',
    {
      schema: {
        hide: hidden,
        tags: ['price list'],
        summary: "The price list document's JSON Schema",
        response: { 200: Type.Unsafe<string>({ description: 'JSON Schema 2020-12' }), ...faultResponses(401, 403) },
      },
    },
    async (_request, reply) => reply.type('application/schema+json; charset=utf-8').send(JSON.stringify(priceList.schema.schema, null, 2) + '\n'),
  );

  app.post(
    '/price_list',
    {
      config: { bodyName: 'price_list', maxBodyBytes: bodyLimit, textBody: [JSON_MEDIA_TYPE, ...YAML_MEDIA_TYPES] },
      schema: {
        hide: hidden,
        tags: ['price list'],
        summary: 'Diff (dry_run=true) or apply a price list at effective_at, in one transaction',
        querystring: ApplyQuery,
        response: { 200: Type.Unsafe<string>(Diff), 400: InvalidDocument, ...faultResponses(401, 403, 409, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const text = request.body;
      if (typeof text !== 'string') {
        throw new BadRequestError(`Send the price list as the request body, with Content-Type ${JSON_MEDIA_TYPE} or application/yaml.`);
      }
      const query = request.query;
      const audit = { actor: actingUser(request), now: requestTime() };
      const ifRevision = query.if_revision === undefined ? undefined : Number(query.if_revision);
      if (ifRevision !== undefined && !Number.isSafeInteger(ifRevision))
        throw invalidInput('if_revision', query.if_revision, 'Value must be a revision number.');
      const diff = await priceList.apply(
        text,
        bodyFormat(request),
        {
          dryRun: queryBoolean(query.dry_run) ?? false,
          effectiveAt: optionalDate(query.effective_at, 'effective_at'),
          ifRevision,
          unversionedNow: queryBoolean(query.unversioned_now) ?? false,
          onWriting: (counts) => request.log.info({ counts }, 'price list: writing'),
        },
        audit,
        changeJournal(request),
      );
      if (!diff.dry_run && diff.changes.length > 0) onChange();
      // No response schema to walk: the diff's JSON text, whole when small, else streamed with
      // back-pressure (fix, issue 24: a 280,000-rule diff was a 103 MB string, made in one go on
      // the event loop and held until the client had read it).
      reply.type('application/json; charset=utf-8');
      if (diff.changes.length <= STREAM_FROM_CHANGES) {
        const answer = JSON.stringify(diff);
        bulkWork.set(request, { chars: text.length + answer.length });
        return reply.send(answer);
      }
      const counted = { chars: text.length };
      bulkWork.set(request, counted);
      return reply.send(streamedAnswer(diffParts(diff, counted)) as unknown as string);
    },
  );
};
