/**
 * `TARIFF_METRICS_HOST` (issue 24): the unauthenticated metrics port listens on 127.0.0.1 unless
 * told otherwise, even when the API listens on every address (`TARIFF_HOST=0.0.0.0`), so a public
 * API does not publish its metrics with it. Real server processes; the machine's first
 * non-loopback IPv4 address stands for "the outside".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/server.js';

/** The machine's first non-loopback IPv4 address, if it has one. */
const OUTSIDE = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

/** Whether `url` answers at all within 5 s. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(OUTSIDE === undefined)('the metrics port of a server listening on every address', () => {
  let directory: string | undefined;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function start(environment: Record<string, string>): Promise<number> {
    directory = mkdtempSync(join(tmpdir(), 'tariff-metrics-host-'));
    const metricsPort = await freePort();
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
      TARIFF_HOST: '0.0.0.0',
      TARIFF_AUTH: 'noauth',
      TARIFF_METRICS_PORT: String(metricsPort),
      TARIFF_LOG_LEVEL: 'info',
      ...environment,
    });
    return metricsPort;
  }

  it('listens on 127.0.0.1 by default: the API answers from outside, the metrics do not', async () => {
    const metricsPort = await start({});
    expect(await answers(`http://${OUTSIDE}:${server!.port}/healthcheck`)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    expect(await answers(`http://${OUTSIDE}:${metricsPort}/metrics`)).toBe(false);
    expect(server!.output()).toContain(`"url":"http://127.0.0.1:${metricsPort}/metrics"`);
  });

  it('listens where TARIFF_METRICS_HOST says', async () => {
    const metricsPort = await start({ TARIFF_METRICS_HOST: OUTSIDE! });
    expect((await fetch(`http://${OUTSIDE}:${metricsPort}/metrics`)).status).toBe(200);
    expect(await answers(`http://127.0.0.1:${metricsPort}/metrics`)).toBe(false);
  });
});
