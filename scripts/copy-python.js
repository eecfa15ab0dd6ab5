#!/usr/bin/env node
// Build step after tsc (`npm run build`): copies the Python source files under src/ (the PyScripts
// sandbox's conversion.py and harness.py) to the same place under dist/, where the compiled
// modules read them. tsc copies only TypeScript output.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const source = join(root, 'src');
const target = join(root, 'dist');

/** Every `.py` file under `directory`, recursively. */
function pythonFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return pythonFiles(path);
    return entry.isFile() && entry.name.endsWith('.py') ? [path] : [];
  });
}

for (const file of pythonFiles(source)) {
  const copy = join(target, relative(source, file));
  mkdirSync(dirname(copy), { recursive: true });
  copyFileSync(file, copy);
}
