/**
 * `POST /v2/rating/price_list/simulation` (docs/price-list.md §4): a draft price list priced on
 * stored usage, answered as JSON, CSV or streamed NDJSON with progress. `rating:module_config`
 * guards it in Keystone mode, as the apply (auth/route-policy.ts).
 *
 * The body is read here, as a stream: a draft alone (JSON or YAML; the usage then comes from
 * CloudKitty), or a multipart upload of the draft and a usage file (`upload.ts`), which the
 * simulation reads as it arrives.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { classifyDatabaseError } from '../../database/errors.js';
import { faultResponses } from '../../http/fault-schema.js';
import { faultBody } from '../../http/faults.js';
import { decodeUtf8Body } from '../../http/input-text.js';
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import { parseDateTime } from '../common/datetime.js';
import { QueryString } from '../common/schemas.js';
import { JSON_MEDIA_TYPE, YAML_MEDIA_TYPES, type DocumentFormat } from '../price-list/document-text.js';
import { InvalidDocument } from '../price-list/routes.js';
import type { SimulationProgress, Simulator, UsageInput } from './simulator.js';
import { draftFormat, readUpload } from './upload.js';

/** What the route is given. */
export interface SimulationRouteOptions {
  simulator: Simulator;
  /** Largest draft, in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`, as the apply's document). */
  draftBytes: number;
  hidden: boolean;
}

const SimulationQuery = QueryString({
  begin: Type.String({ description: 'ISO 8601: the first dataframe begin read' }),
  end: Type.String({ description: 'ISO 8601: dataframes that begin before it are read' }),
  effective_at: Type.Optional(Type.String({ description: 'ISO 8601; default begin: when the draft takes over' })),
  top: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'projects and services in the movers lists (default 10)' })),
});

/** The media types a draft alone is sent as (the apply's). */
const DRAFT_TYPES = [JSON_MEDIA_TYPE, ...YAML_MEDIA_TYPES];
const NDJSON = 'application/x-ndjson';
const CSV = 'text/csv';
/** Milliseconds between two progress lines. */
const PROGRESS_INTERVAL_MS = 1000;

/** The request's media type, lowercased, without parameters. */
function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** The answer's type from `Accept`: the first of NDJSON, CSV and JSON it names, JSON by default. */
function answerType(request: FastifyRequest): 'ndjson' | 'csv' | 'json' {
  const accept = (request.headers.accept ?? '').toLowerCase();
  const found = [
    { type: 'ndjson', at: accept.indexOf(NDJSON) },
    { type: 'csv', at: accept.indexOf(CSV) },
    { type: 'json', at: accept.indexOf('application/json') },
  ].filter((entry) => entry.at >= 0);
  found.sort((a, b) => a.at - b.at);
  return (found[0]?.type ?? 'json') as 'ndjson' | 'csv' | 'json';
}

/** The whole body as UTF-8 text, at most `limit` bytes. @throws 413 past it, 400 for bytes that are not UTF-8. */
async function bodyText(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit) {
      body.resume();
      throw new TariffError(413, `The draft is larger than ${limit} bytes (TARIFF_QUOTE_BODY_LIMIT_MB).`);
    }
    chunks.push(chunk as Buffer);
  }
  return decodeUtf8Body(Buffer.concat(chunks));
}

/** A fault's status and text for an error that ended a simulation mid-way. */
function faultOf(error: unknown): { status: number; message: string } {
  if (error instanceof TariffError) return { status: error.status, message: error.message };
  const classified = classifyDatabaseError(error);
  if (classified instanceof TariffError) return { status: classified.status, message: classified.message };
  return { status: 500, message: 'The server could not complete the simulation; the error is in its log.' };
}

/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180); a formula's first character neutralised. */
function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?[0-9]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CSV_COLUMNS = ['project_id', 'service', 'points', 'changed_points', 'stored', 'current', 'draft', 'delta', 'relative_delta'] as const;

/** The result's rows per project and service as CSV. */
function resultCsv(rows: readonly Record<string, unknown>[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((column) => csvField(row[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The simulation route, under `/v2/rating`. */
export const simulationRoutes: FastifyPluginAsyncTypebox<SimulationRouteOptions> = async (app, { simulator, draftBytes, hidden }) => {
  const bodies = new WeakMap<FastifyRequest, Readable>();
  // This plugin's own parsers: any body is kept as the stream it is, and read by the handler.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    bodies.set(request, payload);
    done(null, undefined);
  });

  app.post(
    '/price_list/simulation',
    {
      config: { maxBodyBytes: simulator.limits.uploadBytes },
      schema: {
        hide: hidden,
        tags: ['price list'],
        summary: 'Price stored usage with the current rules and with a draft price list (docs/price-list.md §4); nothing is written',
        querystring: SimulationQuery,
        response: {
          200: Type.Unsafe<string>({ description: 'The result (JSON), its rows (CSV) or progress lines and the result (NDJSON)' }),
          400: InvalidDocument,
          ...faultResponses(401, 403, 413, 415, 502, 503, 504),
        },
      },
    },
    async (request, reply) => {
      const body = bodies.get(request);
      const query = request.query;
      const begin = parseDateTime(query.begin, 'begin');
      const end = parseDateTime(query.end, 'end');
      const effectiveAt = query.effective_at === undefined ? begin : parseDateTime(query.effective_at, 'effective_at');
      const top = query.top === undefined ? 10 : Number(query.top);
      const type = mediaTypeOf(request);
      if (body === undefined) throw new BadRequestError('Send the draft price list as the body, or a multipart body with parts price_list and usage.');
      let draft: { text: string; format: DocumentFormat };
      let usage: UsageInput;
      const release = simulator.admit();
      try {
        if (type === 'multipart/form-data') {
          const upload = await readUpload(request.headers, body, { draftBytes });
          draft = upload.draft;
          usage = { kind: 'file', stream: upload.usage };
        } else if (DRAFT_TYPES.includes(type)) {
          const text = await bodyText(body, draftBytes);
          draft = { text, format: draftFormat(type, text) };
          usage = { kind: 'cloudkitty' };
        } else {
          body.resume();
          throw new TariffError(
            415,
            `Unknown mimetype: ${request.headers['content-type'] ?? 'none'}; send application/json, application/yaml or multipart/form-data`,
          );
        }
      } catch (error) {
        release();
        throw error;
      }
      return answer(request, reply, release, { draft, usage, begin, end, effectiveAt, top });
    },
  );

  /** Runs the simulation and answers it in the type asked for. */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    release: () => void,
    asked: { draft: { text: string; format: DocumentFormat }; usage: UsageInput; begin: Date; end: Date; effectiveAt: Date; top: number },
  ) {
    const gone = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) gone.abort(new TariffError(499, 'The client closed the connection.'));
    });
    const kind = answerType(request);
    let latest: SimulationProgress = { points: 0, windows: 0, windowsDone: 0, elapsedMs: 0 };
    let started = () => {};
    const startedOrFailed = new Promise<void>((resolve) => (started = resolve));
    const running = simulator
      .run({
        ...asked,
        caller: request.identity?.projectId ? `project:${request.identity.projectId}` : `address:${request.ip}`,
        signal: gone.signal,
        onStarted: () => started(),
        onProgress: (progress: SimulationProgress) => (latest = progress),
      })
      .finally(release);
    // The usage file is the body: what is left of it after a failure is drained, not answered into.
    running.catch(() => (asked.usage.kind === 'file' ? asked.usage.stream.resume() : undefined));
    await Promise.race([startedOrFailed, running]);
    if (kind !== 'ndjson') {
      const result = await running;
      if (kind === 'csv') return reply.type('text/csv; charset=utf-8').send(resultCsv(result.project_services));
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(result));
    }
    const stream = new PassThrough();
    const progressLine = ({ points, windows, windowsDone, elapsedMs }: SimulationProgress) =>
      `${JSON.stringify({ progress: { points, windows, windows_done: windowsDone, elapsed_ms: Math.round(elapsedMs) } })}\n`;
    stream.write(progressLine(latest));
    // A line a second, however long a dataframe takes: the caller sees progress, and proxies a live connection.
    const heartbeat = setInterval(() => stream.write(progressLine(latest)), PROGRESS_INTERVAL_MS);
    running
      .then(
        (result) => stream.end(`${JSON.stringify({ result })}\n`),
        (error: unknown) => {
          if (gone.signal.aborted) return stream.destroy();
          const fault = faultOf(error);
          if (fault.status >= 500) request.log.error({ err: error }, 'simulation failed');
          else request.log.info({ fault: fault.message }, 'simulation refused');
          stream.end(`${JSON.stringify({ error: { ...faultBody(fault.status, fault.message), status: fault.status } })}\n`);
        },
      )
      .finally(() => clearInterval(heartbeat));
    return reply.type(`${NDJSON}; charset=utf-8`).send(stream);
  }
};
