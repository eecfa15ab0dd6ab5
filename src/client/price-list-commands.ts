/**
 * `tariff price-list export|diff|apply`: the operator's commands over the server's price-list
 * endpoints. Each returns its exit code: 0 done (diff: no changes), 2 diff found changes, 1 failed
 * or refused (the reason on stderr as `tariff: …`).
 */
import { parsePriceListArguments, PRICE_LIST_USAGE, type DocumentCommand, type ExportCommand } from './arguments.js';
import { confirm } from './confirm.js';
import { connect, type Connection } from './connection.js';
import { changeCount, CHANGE_ACTIONS, type PriceListDiff } from './diff.js';
import { readDocumentFile, type DocumentFile } from './document-file.js';
import { ClientError } from './errors.js';
import { formatApplied, formatPlan } from './plan.js';
import { exportPriceList, postPriceList, type ApplyOptions } from './price-list-api.js';
import { Progress } from './progress.js';
import { readClientSettings, type ClientSettings, type Environment } from './settings.js';
import { escapeControlCharacters, writeOutput } from './terminal-text.js';

/** The process's streams and environment (a test's in unit tests). */
export interface Terminal {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  environment: Environment;
}

/** Exit codes. */
const EXIT = { done: 0, failed: 1, changes: 2 } as const;

/** Lines from the server's answer, each control character escaped (terminal-text.ts). */
function printLines(stream: NodeJS.WritableStream, lines: string[]): void {
  writeOutput(stream, lines.map((line) => `${line}\n`).join(''));
}

/** `412 KB`, `0.3 KB`. */
function kilobytes(bytes: number): string {
  const size = bytes / 1024;
  return `${size < 10 ? size.toFixed(1) : Math.round(size)} KB`;
}

async function connectReporting(settings: ClientSettings, progress: Progress): Promise<Connection> {
  progress.enter(settings.credentials?.kind === 'password' ? 'logging in to Keystone' : 'connecting');
  return connect(settings);
}

/** One POST of the document, its phases reported. */
async function post(connection: Connection, document: DocumentFile, options: ApplyOptions, progress: Progress): Promise<PriceListDiff> {
  progress.enter(`sending ${kilobytes(document.bytes.length)}`);
  const waiting = options.dryRun ? "waiting for the server's plan" : 'waiting for the server to apply';
  return postPriceList(connection, document, options, () => progress.enter(waiting));
}

async function runExport(command: ExportCommand, terminal: Terminal): Promise<number> {
  const connection = await connect(readClientSettings(terminal.environment, command.url));
  const text = await exportPriceList(connection, command.format, command.at);
  // The document as sent to a file or pipe; escaped on a terminal.
  writeOutput(terminal.stdout, text.endsWith('\n') ? text : `${text}\n`, true);
  return EXIT.done;
}

/** Reads the document, connects and asks for the plan (a dry run), printing it on stdout. */
async function plan(command: DocumentCommand, terminal: Terminal): Promise<{ connection: Connection; document: DocumentFile; diff: PriceListDiff }> {
  const settings = readClientSettings(terminal.environment, command.url);
  const progress = new Progress(terminal.stderr);
  try {
    progress.enter(`reading ${command.file === '-' ? 'stdin' : escapeControlCharacters(command.file)}`);
    const document = await readDocumentFile(command.file, terminal.stdin);
    const connection = await connectReporting(settings, progress);
    const options = { dryRun: true, effectiveAt: command.at, ifRevision: command.ifRevision, unversionedNow: command.unversionedNow };
    const diff = await post(connection, document, options, progress);
    progress.stop();
    printLines(terminal.stdout, formatPlan(diff));
    return { connection, document, diff };
  } finally {
    progress.stop();
  }
}

async function runDiff(command: DocumentCommand, terminal: Terminal): Promise<number> {
  const { diff } = await plan(command, terminal);
  return changeCount(diff) === 0 ? EXIT.done : EXIT.changes;
}

/** Whether the operator agreed, asking on the terminal unless `--yes`; refuses when no one can answer. */
async function confirmed(command: DocumentCommand, terminal: Terminal): Promise<boolean> {
  if (command.yes) return true;
  if (command.file === '-')
    throw new ClientError('Not applied: the price list came on stdin, so no answer can be read from it. Review the plan, then pass --yes.');
  if (!terminal.stdin.isTTY) throw new ClientError('Not applied: stdin is not a terminal, so no one can confirm. Review the plan, then pass --yes.');
  return confirm('Apply these changes? [y/N] ', terminal.stdin, terminal.stderr);
}

async function runApply(command: DocumentCommand, terminal: Terminal): Promise<number> {
  const { connection, document, diff: planned } = await plan(command, terminal);
  if (changeCount(planned) === 0) return EXIT.done;
  if (!(await confirmed(command, terminal))) {
    terminal.stderr.write('Not applied: nothing was changed.\n');
    return EXIT.failed;
  }
  const progress = new Progress(terminal.stderr);
  let applied: PriceListDiff;
  try {
    // if_revision: the plan's revision, so a change made meanwhile is refused (409) rather than overwritten.
    const options = { dryRun: false, effectiveAt: command.at, ifRevision: planned.revision, unversionedNow: command.unversionedNow };
    applied = await post(connection, document, options, progress);
  } finally {
    progress.stop();
  }
  writeOutput(terminal.stdout, `${formatApplied(applied)}\n`);
  if (CHANGE_ACTIONS.some((action) => applied.counts[action] !== planned.counts[action])) {
    writeOutput(
      terminal.stderr,
      `tariff: note: the server's changes differ from the plan (the apply's time, ${applied.effective_at}, is later than the plan's: rules scheduled in between count differently).\n`,
    );
  }
  return EXIT.done;
}

/**
 * Runs `tariff price-list …`.
 *
 * @param args - the arguments after `price-list`.
 * @returns the exit code: 0 done or no changes, 2 diff found changes, 1 failed or not applied.
 */
export async function runPriceListCommand(args: string[], terminal: Terminal): Promise<number> {
  try {
    const command = parsePriceListArguments(args);
    switch (command.name) {
      case 'help':
        terminal.stdout.write(`usage:\n${PRICE_LIST_USAGE}\n`);
        return EXIT.done;
      case 'export':
        return await runExport(command, terminal);
      case 'diff':
        return await runDiff(command, terminal);
      case 'apply':
        return await runApply(command, terminal);
    }
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    // A faultstring or problem of the server's, a file's name: escaped.
    writeOutput(terminal.stderr, `tariff: ${error.message}\n`);
    return error.exitCode;
  }
}
