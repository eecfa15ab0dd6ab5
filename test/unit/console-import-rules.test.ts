/**
 * The console's import rules (.dependency-cruiser.cjs, run by `npm run lint` over console/src):
 * dependency-cruiser over a small console tree with one breach of each rule finds exactly those
 * breaches, and none in the imports the layers allow. The real console/src is checked by the lint.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';

const configuration = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: IForbiddenRuleType[];
  options: { enhancedResolveOptions: { extensions: string[] } };
};

/** The tree: each file's imports, as `import './x.js'` lines (a `.js` name finds the `.ts` or `.tsx`). */
const TREE: Record<string, string[]> = {
  'console/src/main.tsx': ['./app.js'],
  'console/src/app.tsx': ['./pages/services/services.js', './session.js'],
  'console/src/api/client.ts': [],
  'console/src/api/scripts.ts': ['./client.js'],
  'console/src/session.tsx': ['./api/client.js'],
  'console/src/components/fault.tsx': ['../session.js'],
  'console/src/editing/rule-editor.tsx': ['./mapping-form.js', '../components/fault.js', '../api/scripts.js'],
  'console/src/pages/services/services.tsx': ['./table.js', '../../editing/rule-editor.js', '../../api/client.js'],
  'console/src/pages/services/table.tsx': ['../../components/fault.js'],
  // Breaches, one per rule:
  'console/src/editing/mapping-form.tsx': ['./rule-editor.js'], // a cycle
  'console/src/api/session-reader.ts': ['../session.js'], // api → shared
  'console/src/format.ts': ['./components/fault.js'], // shared → components
  'console/src/components/badge.tsx': ['../editing/rule-editor.js'], // components → editing
  'console/src/editing/links.ts': ['../pages/services/table.js'], // editing → pages
  'console/src/pages/groups/groups.tsx': ['../../app.js', '../services/table.js'], // pages → app; a page → another page
  'console/src/pages/groups/rows.ts': ['../../../../src/kernel/errors.js'], // the console → the server
  'src/kernel/errors.ts': [],
  'src/http/console.ts': ['../../console/src/format.js'], // the server → the console
};

let root: string;
let result: ICruiseResult;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tariff-console-rules-'));
  for (const [file, imports] of Object.entries(TREE)) {
    await mkdir(path.join(root, path.dirname(file)), { recursive: true });
    await writeFile(path.join(root, file), imports.map((name) => `import '${name}';\n`).join('') + 'export {};\n');
  }
  const { output } = await cruise(
    ['console/src', 'src'],
    { baseDir: root, validate: true, ruleSet: { forbidden: configuration.forbidden }, tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } },
    { extensions: configuration.options.enhancedResolveOptions.extensions },
  );
  result = output as ICruiseResult;
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `rule: from → to` for each violation, sorted. */
function violations(): string[] {
  return result.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`).sort();
}

describe("the console's import rules", () => {
  it('resolves every import of the tree (a .js name to its .ts or .tsx file)', () => {
    const unresolved = result.modules.flatMap((module) =>
      module.dependencies.filter((dependency) => dependency.couldNotResolve).map((dependency) => `${module.source} → ${dependency.module}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('finds exactly the breaches: a cycle, each upward import, a page importing another, and the console and server importing each other', () => {
    expect(violations()).toEqual(
      [
        'console-api: console/src/api/session-reader.ts → console/src/session.tsx',
        'console-components: console/src/components/badge.tsx → console/src/editing/rule-editor.tsx',
        'console-editing: console/src/editing/links.ts → console/src/pages/services/table.tsx',
        'console-not-server: console/src/pages/groups/rows.ts → src/kernel/errors.ts',
        'console-page-alone: console/src/pages/groups/groups.tsx → console/src/pages/services/table.tsx',
        'console-pages: console/src/pages/groups/groups.tsx → console/src/app.tsx',
        'console-shared: console/src/format.ts → console/src/components/fault.tsx',
        'no-circular: console/src/editing/mapping-form.tsx → console/src/editing/rule-editor.tsx',
        'server-not-console: src/http/console.ts → console/src/format.ts',
      ].sort(),
    );
  });
});
