/**
 * The process's loggers (src/kernel/logger.ts): ISO 8601 times in both formats, the start-up and
 * shutdown logger that passes `TARIFF_LOG_LEVEL=warn`, the text format's readable request line,
 * and hostile text in any logged value never reaching a terminal raw (one line, no control
 * character), checked with fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import { ACCESS_LINE_MESSAGE, createLoggers, type LogSettings } from '../../src/kernel/logger.js';

/** A pino destination that keeps what is written, one string a write. */
function captured(): { write(text: string): void; lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (text: string) => void lines.push(text) };
}

function loggersFor(settings: LogSettings) {
  const out = captured();
  return { ...createLoggers(settings, out), lines: out.lines };
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/**
 * One character of hostile text: C0 and C1 controls, DEL, bidi marks and overrides often, and any
 * other code point (lone surrogates included). fast-check's own `unit: 'binary'` takes ~10 s to
 * build here.
 */
const HOSTILE_CHARACTER = fc.oneof(
  fc.integer({ min: 0, max: 0xa0 }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('\u061c', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202e', '\u2066', '\u2069', '"', '\\', '{', '}'),
  fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
);
/** What must never reach a terminal from a logged value (newlines are checked apart). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('the loggers', () => {
  it('write ISO 8601 UTC times, in JSON and in text', () => {
    const json = loggersFor({ logLevel: 'info', logFormat: 'json' });
    json.logger.info('hello');
    expect(JSON.parse(json.lines[0]).time).toMatch(ISO_TIME);
    const text = loggersFor({ logLevel: 'info', logFormat: 'text' });
    text.logger.info({ version: '1' }, 'hello');
    expect(text.lines).toHaveLength(1);
    expect(text.lines[0]).toMatch(/^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] INFO: hello \{"version":"1"\}\n$/);
  });

  it('keep the start-up and shutdown lines at warn, error and fatal, and silence them at silent', () => {
    for (const level of ['warn', 'error', 'fatal']) {
      const { logger, lifecycle, lines } = loggersFor({ logLevel: level, logFormat: 'json' });
      logger.info('an ordinary line');
      lifecycle.info('Tariff is serving the rating API');
      logger.warn('a warning');
      expect(lines.map((line) => JSON.parse(line).msg)).toEqual(
        level === 'warn' ? ['Tariff is serving the rating API', 'a warning'] : ['Tariff is serving the rating API'],
      );
    }
    const silent = loggersFor({ logLevel: 'silent', logFormat: 'json' });
    silent.lifecycle.info('Tariff is serving the rating API');
    silent.logger.fatal('never');
    expect(silent.lines).toEqual([]);
    const debug = loggersFor({ logLevel: 'debug', logFormat: 'json' });
    debug.lifecycle.debug('a debug line of start-up');
    expect(debug.lines).toHaveLength(1);
  });

  it('write a request as one readable line in text, the request id kept', () => {
    const { logger, lines } = loggersFor({ logLevel: 'info', logFormat: 'text' });
    logger.child({ reqId: 'req-1' }).info(
      {
        method: 'POST',
        url: '/v2/rating/quote',
        route: '/v2/rating/quote',
        status: 422,
        duration_ms: 12.5,
        user: 'alice',
        fault: 'Script evil failed: PermissionError: x',
      },
      ACCESS_LINE_MESSAGE,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\[[^\]]+\] INFO: POST \/v2\/rating\/quote 422 12\.5 ms user=alice: Script evil failed: PermissionError: x \{"reqId":"req-1"\}\n$/,
    );
  });

  it('write an error with its stack on the lines after its own, in text', () => {
    const { logger, lines } = loggersFor({ logLevel: 'info', logFormat: 'text' });
    logger.error({ err: new Error('broken\u001b[2J') }, 'server fault');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[[^\]]+\] ERROR: server fault ?\n/);
    expect(lines[0]).toContain('broken\\u001b[2J');
    expect(lines[0]).toMatch(/\n\s+at /);
    expect(lines[0]).not.toMatch(RAW_CONTROL);
  });

  it('never let a logged value break a text line or drive the terminal', () => {
    const { logger, lines } = loggersFor({ logLevel: 'info', logFormat: 'text' });
    const hostile = fc.string({ unit: HOSTILE_CHARACTER, maxLength: 40 });
    fc.assert(
      fc.property(hostile, hostile, hostile, hostile, (url, user, fault, other) => {
        lines.length = 0;
        logger.child({ reqId: 'req-2' }).info({ method: 'GET', url, status: 400, duration_ms: 1, user, fault }, ACCESS_LINE_MESSAGE);
        logger.warn({ [other]: other, nested: { name: other } }, other);
        expect(lines).toHaveLength(2);
        for (const line of lines) {
          expect(line.endsWith('\n')).toBe(true);
          expect(line.slice(0, -1)).not.toMatch(RAW_CONTROL);
          expect(line.slice(0, -1)).not.toContain('\n');
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('TARIFF_LOG_FORMAT', () => {
  it('is json by default, text when asked, and anything else is refused naming the values', () => {
    expect(loadConfig({}).logFormat).toBe('json');
    expect(loadConfig({ TARIFF_LOG_FORMAT: 'text' }).logFormat).toBe('text');
    expect(() => loadConfig({ TARIFF_LOG_FORMAT: 'pretty' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ TARIFF_LOG_FORMAT: 'pretty' })).toThrow(/TARIFF_LOG_FORMAT must be 'json' .* or 'text' .*, got 'pretty'/);
  });
});
