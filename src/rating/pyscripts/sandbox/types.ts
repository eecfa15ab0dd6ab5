/** Shapes the PyScripts sandbox takes and gives (rating.md §1 and §6). */

/**
 * One usage point of a dataframe as JSON (rating.md §1). Decimals are exact decimal text
 * (`"1"`, `"0.25"`, `"1E+2"`); keys beyond the four named ones pass through the scripts unchanged.
 */
export interface JsonPoint {
  /** Quantity used: `qty` is a decimal text, `unit` a free label. */
  vol: { unit: string; qty: string };
  /** The point's price, a decimal text. */
  rating: { price: string };
  /** Grouping attributes (JSON scalars). */
  groupby: Record<string, unknown>;
  /** Descriptive attributes (JSON scalars). */
  metadata: Record<string, unknown>;
  [extra: string]: unknown;
}

/**
 * A dataframe as JSON (rating.md §1): the rating period (ISO 8601 datetimes; on output always
 * UTC with an explicit `+00:00` offset) and the usage points by service name.
 */
export interface JsonDataframe {
  period: { begin: string; end: string };
  usage: Record<string, JsonPoint[]>;
}

/** A script to run: its name (used in errors and as Python's file name) and Python source. */
export interface ScriptSource {
  name: string;
  source: string;
}

/**
 * What compiling a source gave: fine, or Python's `SyntaxError` message with its 1-based line and
 * column (both 0 when Python gives no position, e.g. for a `RecursionError` while compiling).
 */
export type CompileResult = { ok: true } | { ok: false; message: string; line: number; column: number };

/** Options of a {@link ScriptSandbox}. */
export interface SandboxOptions {
  /** Worker processes kept warm; each runs one request at a time. Default 2. */
  poolSize?: number;
  /**
   * Wall-clock limit in milliseconds for the scripts of one `run` call taken together (and for
   * one `compile` call); converting the dataframe in and out is not counted. Default 2000.
   */
  timeoutMs?: number;
  /**
   * Memory limit in MiB: the cap of the Python heap (the interpreter's WebAssembly memory, about
   * 30 MiB of which the interpreter itself uses) and of the worker's JavaScript heap. The worker's
   * resident size is also capped, at 256 MiB + 3 × this, as a backstop. Default 256.
   */
  memoryLimitMb?: number;
}
