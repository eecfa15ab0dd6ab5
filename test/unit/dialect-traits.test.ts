/**
 * Issue 12: what differs between databases lives in one traits object per dialect
 * (src/database/dialects/); no code elsewhere asks which database it runs on, so adding a dialect
 * cannot leave a branch behind that compiles silently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dialectNamed } from '../../src/database/dialects/dialect.js';
import { DIALECT_NAMES } from '../../src/database/dialects/traits.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const DIALECTS = join(SRC, 'database', 'dialects');
/** A comparison with a dialect name, or a switch over one. */
const DIALECT_BRANCH = /\bdialect\s*[!=]==|[!=]==\s*'(sqlite|postgres|mysql)'|switch\s*\(\s*[\w.]*dialect\s*\)/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('dialect traits', () => {
  it('every dialect name has its own traits object', () => {
    const traits = DIALECT_NAMES.map((name) => dialectNamed(name).traits);
    expect(new Set(traits).size).toBe(DIALECT_NAMES.length);
    expect(traits.map((each) => each.displayName)).toEqual(['SQLite', 'PostgreSQL', 'MariaDB/MySQL']);
  });

  it('no code outside src/database/dialects/ branches on the dialect', () => {
    const branches = sourceFiles(SRC)
      .filter((file) => !file.startsWith(`${DIALECTS}/`))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (DIALECT_BRANCH.test(line) ? [`${relative(SRC, file)}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(branches).toEqual([]);
  });
});
