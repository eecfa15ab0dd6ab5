/**
 * The process's loggers: pino at `TARIFF_LOG_LEVEL`, written as JSON lines or as readable text
 * (`TARIFF_LOG_FORMAT`), with ISO 8601 UTC times in both, and a second logger for the lines an
 * operator must see whatever the level (start-up, shutdown).
 */
import { createRequire } from 'node:module';
import { destination as fileDestination, pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import type { LogFormat } from '../config.js';

/** The part of pino-pretty's API the text format uses: a formatter of one parsed line. */
interface PinoPretty {
  prettyFactory(options: { colorize: boolean; translateTime: boolean; ignore: string; singleLine: boolean }): (line: object) => string;
}

/**
 * pino-pretty, loaded when the text format is asked for only: a process logging JSON (the default,
 * in production) neither loads it nor its dependencies.
 */
function loadPinoPretty(): PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as PinoPretty;
}

/** What {@link createLoggers} needs: the two log settings of `TariffConfig`. */
export interface LogSettings {
  /** pino level: `fatal` … `trace`, `silent`. */
  logLevel: string;
  /** `json` or `text`. */
  logFormat: LogFormat;
}

/** The loggers of one process. */
export interface TariffLoggers {
  /** Everything else: requests, faults, warnings; at `TARIFF_LOG_LEVEL`. */
  logger: Logger;
  /**
   * Start-up and shutdown ("Tariff is serving …", "draining …", "stopped"): a child of `logger`
   * whose level is `info` when `TARIFF_LOG_LEVEL` is `warn`, `error` or `fatal`, so that an
   * operator who keeps only warnings still sees the process start and stop (pino has no level
   * between info and warn). `silent` silences it too; at `debug` and `trace` it is `logger`.
   */
  lifecycle: Logger;
}

/**
 * The message of the access log's line, one per request (http/request-log.ts), whose fields are
 * {@link AccessLineFields}.
 */
export const ACCESS_LINE_MESSAGE = 'request completed';

/** The fields of an access-log line besides the request id (`reqId`, from Fastify's child logger). */
export interface AccessLineFields {
  method: string;
  /** The path and query string as the client sent them. */
  url: string;
  /** The route's pattern (`/v1/rating/module_config/hashmap/mappings/:mapping_id`); absent for an unknown path. */
  route?: string;
  status: number;
  /** From the request's arrival to its answer sent, in milliseconds (one decimal). */
  duration_ms: number;
  /** The acting user: the token's in Keystone mode, `X-User-Id` in noauth mode. */
  user?: string;
  /** The token's project (Keystone mode). */
  project?: string;
  /** The fault body's `faultstring` of a 4xx or 5xx answer. */
  fault?: string;
  /** A server fault's error, with its stack. */
  err?: unknown;
}

/** Levels above info (quieter): the lifecycle lines are raised to pass them. */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal']);

/**
 * What must never reach a terminal raw from a logged value: C0 controls (a newline inside a value
 * would forge a line), DEL, C1 controls (CSI), the line and paragraph separators, and the
 * bidirectional formatting characters; the set the CLI escapes (src/client/terminal-text.ts, a
 * layer this one cannot import), newlines and tabs included.
 */
const UNPRINTABLE_BUT_NEWLINE_CLASS = '\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_BUT_NEWLINE_CLASS}\\n]`, 'g');
/** The same, newlines allowed: for an error's stack, printed on its own lines. */
const UNPRINTABLE_BUT_NEWLINE = new RegExp(`[${UNPRINTABLE_BUT_NEWLINE_CLASS}]`, 'g');

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `value` with every string in it escaped (JSON's `\u001b` notation), keys included. */
function escapedValue(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return value.replace(key === 'stack' ? UNPRINTABLE_BUT_NEWLINE : UNPRINTABLE, escapeCharacter);
  if (Array.isArray(value)) return value.map((item) => escapedValue(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [escapedValue(name), escapedValue(item, name)]));
  }
  return value;
}

/**
 * An access-log line as one readable message: `GET /v1/… 404 3.7 ms user=alice: Resource not
 * found: …`, the request id and any error left as fields.
 */
function accessLineAsText(line: Record<string, unknown>): Record<string, unknown> {
  const { method, url, route: _route, status, duration_ms: durationMs, user, project, fault, ...rest } = line as Record<string, unknown> & AccessLineFields;
  const who = `${user === undefined ? '' : ` user=${user}`}${project === undefined ? '' : ` project=${project}`}`;
  return { ...rest, msg: `${method} ${url} ${status} ${durationMs} ms${who}${fault === undefined ? '' : `: ${fault}`}` };
}

/**
 * Readable lines for a terminal: `[2026-11-27T16:58:48.033Z] INFO: message {"field":…}`, written
 * synchronously (pino-pretty's formatter, without its transport's worker or stream ticks: a line is
 * out when the call returns, so the last lines before `process.exit` are not lost). Without
 * colours, and with control characters in values escaped: values carry client text.
 */
function textDestination(out: DestinationStream): DestinationStream {
  const pretty = loadPinoPretty().prettyFactory({ colorize: false, translateTime: false, ignore: 'pid,hostname', singleLine: true });
  return {
    write(json: string) {
      let line = escapedValue(JSON.parse(json)) as Record<string, unknown>;
      if (line.msg === ACCESS_LINE_MESSAGE) line = accessLineAsText(line);
      out.write(pretty(line));
    },
  };
}

/**
 * Creates the process's loggers.
 *
 * @param settings - `TARIFF_LOG_LEVEL` and `TARIFF_LOG_FORMAT` (config.ts checked them).
 * @param out - where the lines go (tests pass a stream); by default stdout: pino's own buffered
 *   writer for JSON (flushed at exit), a synchronous one for text.
 */
export function createLoggers(settings: LogSettings, out?: DestinationStream): TariffLoggers {
  const options = { level: settings.logLevel, timestamp: stdTimeFunctions.isoTime };
  const logger =
    settings.logFormat === 'text' ? pino(options, textDestination(out ?? fileDestination({ dest: 1, sync: true }))) : out ? pino(options, out) : pino(options);
  const lifecycle = QUIETER_THAN_INFO.has(settings.logLevel) ? logger.child({}, { level: 'info' }) : logger;
  return { logger, lifecycle };
}
