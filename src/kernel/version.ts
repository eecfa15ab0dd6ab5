/**
 * Tariff's version: package.json's `version`, read once when this module loads (from src/ under
 * the tests, from dist/ when built: package.json is two folders up from either). Shown by
 * `tariff --version`, the start-up log line, `/healthcheck?detailed` and the `tariff_build_info`
 * metric.
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error("package.json has no 'version'");
  return manifest.version;
}

/** The semantic version of this Tariff, e.g. `0.1.0`. */
export const TARIFF_VERSION: string = readVersion();
