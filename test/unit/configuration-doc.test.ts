/**
 * Every setting Tariff reads is documented: each `TARIFF_*` name in the files that read the
 * environment (src/config.ts for the server, src/client/settings.ts for the `tariff price-list`
 * client) and each name of `TARIFF_SETTINGS` has a row of its own in a table of
 * docs/operators/configuration.md. A setting added without its line there fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TARIFF_SETTINGS } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The files that read environment variables: config.ts is the server's only reader, settings.ts the client's. */
const READERS = ['src/config.ts', 'src/client/settings.ts'];

/** The operators' page that must list every setting. */
const CONFIGURATION_DOC = 'docs/operators/configuration.md';

/** Names that look like settings but are not: the exported list itself. */
const NOT_SETTINGS = new Set(['TARIFF_SETTINGS']);

/** Every `TARIFF_NAME` written in `text` (at least one letter after the prefix). */
function settingNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/\bTARIFF_[A-Z][A-Z0-9_]*\b/g)) if (!NOT_SETTINGS.has(match[0])) names.add(match[0]);
  return names;
}

/** The setting names in the first cell of the table rows of a Markdown text (`| `TARIFF_X`, `TARIFF_Y` | … |`). */
function documentedNames(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const line of markdown.split('\n')) {
    const row = /^\|([^|]*)\|/.exec(line);
    if (!row) continue;
    for (const match of row[1].matchAll(/`(TARIFF_[A-Z0-9_]+)`/g)) names.add(match[1]);
  }
  return names;
}

describe('the configuration doc', () => {
  const read = (path: string) => readFileSync(`${ROOT}/${path}`, 'utf8');
  const settingsRead = () => new Set([...READERS.flatMap((path) => [...settingNames(read(path))]), ...TARIFF_SETTINGS]);

  it('finds setting names in source text and in the first cell of table rows', () => {
    expect([...settingNames("const a = environment.TARIFF_PORT; megabytes(environment, 'TARIFF_BODY_LIMIT_MB', 1); `TARIFF_${name}` TARIFF_SETTINGS")]).toEqual(
      ['TARIFF_PORT', 'TARIFF_BODY_LIMIT_MB'],
    );
    const table = '| variable | default |\n|---|---|\n| `TARIFF_A`, `TARIFF_B` | `1` mentions `TARIFF_C` |\nprose `TARIFF_D`\n';
    expect([...documentedNames(table)].sort()).toEqual(['TARIFF_A', 'TARIFF_B']);
  });

  it(`lists every TARIFF_* setting read in ${READERS.join(' and ')} in a table row of ${CONFIGURATION_DOC}`, () => {
    const readNames = settingsRead();
    expect(readNames.size).toBeGreaterThan(60);
    const documented = documentedNames(read(CONFIGURATION_DOC));
    const missing = [...readNames].filter((name) => !documented.has(name)).sort();
    expect(missing, `settings without a row in ${CONFIGURATION_DOC}`).toEqual([]);
  });

  it(`names no setting in ${CONFIGURATION_DOC}'s tables that Tariff does not read`, () => {
    const readNames = settingsRead();
    const stale = [...documentedNames(read(CONFIGURATION_DOC))].filter((name) => !readNames.has(name)).sort();
    expect(stale, `rows of ${CONFIGURATION_DOC} naming settings no longer read`).toEqual([]);
  });
});
