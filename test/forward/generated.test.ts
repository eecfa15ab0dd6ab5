/**
 * Forwarding, generated (fast-check): which headers cross (any mix of end-to-end and hop-by-hop
 * names, in any case, with `Connection` naming some), and paths and query strings under the
 * forwarded resources reaching CloudKitty byte for byte while anything else stays Tariff's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endToEndHeaders } from '../../src/http/cloudkitty-forward/headers.js';
import { CLOUDKITTY_FORWARDED_PREFIXES } from '../../src/auth/route-policy.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { echoUpstream, type Upstream } from './upstreams.js';
import { send } from './http.js';

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
];
const END_TO_END = ['x-auth-token', 'x-openstack-request-id', 'accept', 'content-type', 'content-length', 'user-agent', 'x-roles', 'x-custom', 'cache-control'];

/** A name in random case. */
const anyCase = (name: string) =>
  fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

describe('forwarding, generated', () => {
  it('keeps exactly the end-to-end headers not named by Connection, values untouched', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...HOP_BY_HOP, ...END_TO_END), { minLength: 1, selector: (name) => name }),
        fc.subarray(END_TO_END),
        fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.,= '.split('')), maxLength: 20 }),
        (names, namedByConnection, value) => {
          const headers: Record<string, string> = {};
          for (const name of names) headers[name] = name === 'connection' ? namedByConnection.join(', ') : value;
          if (namedByConnection.length > 0) headers.connection = namedByConnection.map((name) => name.toUpperCase()).join(' , ');
          const kept = endToEndHeaders(headers);
          const expected = Object.keys(headers)
            .filter((name) => !HOP_BY_HOP.includes(name) && !namedByConnection.includes(name))
            .sort();
          expect(Object.keys(kept).sort()).toEqual(expected);
          for (const name of expected) expect(kept[name]).toBe(headers[name]);
        },
      ),
      { numRuns: 500, seed: 23 },
    );
    // Case does not matter (Node lowercases names; the filter does not depend on it).
    fc.assert(
      fc.property(fc.constantFrom(...HOP_BY_HOP).chain(anyCase), (name) => {
        expect(endToEndHeaders({ [name]: 'x', accept: '*/*' })).toEqual({ accept: '*/*' });
      }),
      { numRuns: 100, seed: 23 },
    );
  });

  describe('paths and queries, through a real Tariff process', () => {
    let directory: string;
    let upstream: Upstream;
    let tariff: ServerProcess;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'tariff-forward-generated-'));
      upstream = await echoUpstream();
      tariff = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { TARIFF_CLOUDKITTY_API_URL: upstream.url });
    });

    afterAll(async () => {
      await tariff?.stop();
      await upstream?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    /** Path segments CloudKitty's ids and names use, percent-encoded bytes included; never `.` or `..`. */
    const segment = fc
      .string({ unit: fc.constantFrom(...'abcdefXYZ0123456789-_~:@!$&*+,;='.split(''), '%20', '%2F', '%C3%A9'), minLength: 1, maxLength: 12 })
      .filter((text) => text !== '.' && text !== '..');
    const query = fc.option(
      fc.array(
        fc.tuple(fc.stringMatching(/^[a-z_]{1,8}$/), fc.string({ unit: fc.constantFrom(...'abc019-:_.'.split(''), '%2B', '%26', '+'), maxLength: 10 })),
        {
          maxLength: 4,
        },
      ),
      { nil: undefined },
    );

    it('forwards any path under the forwarded resources with its query, byte for byte', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...CLOUDKITTY_FORWARDED_PREFIXES),
          fc.array(segment, { maxLength: 3 }),
          fc.boolean(),
          query,
          async (prefix, segments, slash, pairs) => {
            const path = `${prefix}${segments.map((text) => `/${text}`).join('')}${slash ? '/' : ''}`;
            const url = pairs === undefined ? path : `${path}?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`;
            const before = upstream.received.length;
            const answer = await send(tariff.url, 'GET', url);
            expect(answer.status, url).toBe(200);
            expect(upstream.received.length).toBe(before + 1);
            expect(upstream.received[before].url).toBe(url);
          },
        ),
        { numRuns: 150, seed: 23 },
      );
    }, 120_000);

    it('forwards nothing that is not under them', async () => {
      const before = upstream.received.length;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/v1', '/v2', '/v3', '/v1/rating', '/v2/rating'),
          fc.stringMatching(/^[a-z_]{1,10}$/),
          fc.array(segment, { maxLength: 2 }),
          async (root, name, segments) => {
            fc.pre(!CLOUDKITTY_FORWARDED_PREFIXES.some((prefix) => `${root}/${name}` === prefix));
            const path = `${root}/${name}${segments.map((text) => `/${text}`).join('')}`;
            const answer = await send(tariff.url, 'GET', path);
            expect(answer.status, path).not.toBe(502);
          },
        ),
        { numRuns: 150, seed: 23 },
      );
      expect(upstream.received.length).toBe(before);
    }, 120_000);
  });
});
