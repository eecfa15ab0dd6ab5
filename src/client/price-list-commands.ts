/**
 * `tariff price-list export|diff|apply|simulate`: the operator's commands over the server's
 * price-list endpoints. Each returns its exit code: 0 done (diff: no changes), 2 diff found
 * changes, 1 failed or refused (the reason on stderr as `tariff: …`).
 */
import { parsePriceListArguments, PRICE_LIST_USAGE, type DocumentCommand, type ExportCommand, type SimulateCommand } from './arguments.js';
import { confirm } from './confirm.js';
import { connect, type Connection } from './connection.js';
import { changeCount, CHANGE_ACTIONS, type PriceListDiff } from './diff.js';
import { readDocumentFile, type DocumentFile } from './document-file.js';
import { ClientError } from './errors.js';
import { formatApplied, formatPlan } from './plan.js';
import { exportPriceList, postPriceList, type ApplyOptions } from './price-list-api.js';
import { Progress, progressBar } from './progress.js';
import { readClientSettings, type ClientSettings, type Environment } from './settings.js';
import { formatSimulationCsv, formatSimulationJson, formatSimulationTable, type SimulationProgress, type SimulationResult } from './simulation.js';
import { openUsageFile, simulate } from './simulation-api.js';
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

/** `1.2 GB`, `340 MB`, `12 KB`. */
function size(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return kilobytes(bytes);
}

/**
 * The terminal line's detail while a simulation runs: a bar over the server's windows when it
 * counts them (the usage read from CloudKitty), else over the usage file sent; then the counts.
 */
export function simulationDetail(upload: { sent: number; total: number } | undefined, progress: SimulationProgress | undefined): string {
  const counts: string[] = [];
  let fraction: number | undefined;
  if (progress !== undefined && progress.windows > 0) {
    fraction = progress.windows_done / progress.windows;
    counts.push(`${progress.windows_done}/${progress.windows} windows`);
  }
  if (upload !== undefined && upload.sent < upload.total) {
    fraction ??= upload.sent / upload.total;
    counts.push(`${size(upload.sent)} of ${size(upload.total)} sent`);
  }
  if (progress !== undefined) counts.push(`${progress.points} points`);
  return [...(fraction === undefined ? [] : [progressBar(fraction)]), counts.join(', ')].filter((part) => part !== '').join(' ');
}

/** Reads the draft (and looks at the usage file), connects, and runs the simulation with its progress on stderr. */
async function simulation(command: SimulateCommand, terminal: Terminal): Promise<SimulationResult> {
  const settings = readClientSettings(terminal.environment, command.url);
  const progress = new Progress(terminal.stderr);
  try {
    progress.enter(`reading ${command.file === '-' ? 'stdin' : escapeControlCharacters(command.file)}`);
    const document = await readDocumentFile(command.file, terminal.stdin);
    const usage = command.usage === undefined ? undefined : await openUsageFile(command.usage);
    const connection = await connectReporting(settings, progress);
    progress.enter(usage === undefined ? `sending ${kilobytes(document.bytes.length)}` : `sending ${size(usage.size)} of usage, simulating`);
    let upload: { sent: number; total: number } | undefined;
    let latest: SimulationProgress | undefined;
    const show = () => progress.detail(simulationDetail(upload, latest));
    const options = { begin: command.from, end: command.to, effectiveAt: command.effectiveAt, top: command.top, usage };
    return await simulate(connection, document, options, {
      onUpload: (sent, total) => {
        if (usage === undefined) return;
        upload = { sent, total };
        show();
      },
      onSent: () => {
        progress.enter('simulating');
        show();
      },
      onProgress: (line) => {
        latest = line;
        show();
      },
    });
  } finally {
    progress.stop();
  }
}

async function runSimulate(command: SimulateCommand, terminal: Terminal): Promise<number> {
  const result = await simulation(command, terminal);
  switch (command.format) {
    case 'table':
      printLines(terminal.stdout, formatSimulationTable(result));
      break;
    case 'json':
      writeOutput(terminal.stdout, formatSimulationJson(result));
      break;
    case 'csv':
      // Data for a file or a spreadsheet, as export's document: the server's own CSV bytes to a
      // file or pipe; on a terminal, escaped, with line feeds (a CR would show as \x0d).
      writeOutput(terminal.stdout, formatSimulationCsv(result, (terminal.stdout as { isTTY?: boolean }).isTTY ? '\n' : '\r\n'), true);
      break;
  }
  return EXIT.done;
}

/**
 * Runs `tariff price-list …`.
 *
 * @param args - the arguments after `price-list`.
 * @returns the exit code: 0 done or no changes, 2 diff found changes, 1 failed, not applied or no simulation result.
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
      case 'simulate':
        return await runSimulate(command, terminal);
    }
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    // A faultstring or problem of the server's, a file's name: escaped.
    writeOutput(terminal.stderr, `tariff: ${error.message}\n`);
    return error.exitCode;
  }
}
