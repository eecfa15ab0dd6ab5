/**
 * The Python the sandbox's interpreter runs at start-up: `conversion.py` (the dataframe between
 * JSON and Python objects, and its validation) then `harness.py` (compiling and running scripts,
 * the request dispatcher). Both live beside this file as Python source; the build copies them
 * into dist/ (`scripts/copy-python.js`). The API process reads them and hands the text to each
 * worker in its start-up configuration, so the confined worker needs no read access to them.
 */
import { readFileSync } from 'node:fs';

/** The files, in the order they run (the harness uses what the conversion defines). */
const PYTHON_FILES = ['conversion.py', 'harness.py'] as const;

let source: string | undefined;

/**
 * The start-up source: the files joined in order, read once per process. Its value, as pyodide's
 * `runPython` returns it, is the harness's `dispatch` function.
 *
 * @throws Error (ENOENT) when a file is missing beside the compiled module: the build did not copy it.
 */
export function harnessSource(): string {
  source ??= PYTHON_FILES.map((name) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8')).join('\n');
  return source;
}
