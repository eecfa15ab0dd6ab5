/**
 * Runs simulations of draft price lists (docs/price-list.md §4) for one process: the draft's and
 * the current rules read from one state of the database (`PriceList.draft`), the stored usage read
 * from CloudKitty or a usage file, every point priced on both sides (`engine.ts`), within the
 * limits: points, time, simulations at once.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { SimulationSettings } from '../../config.js';
import type { Database } from '../../database/connection.js';
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import { formatApiDateTime } from '../common/datetime.js';
import type { ModuleSet } from '../contract/module-set.js';
import type { DocumentFormat } from '../price-list/document-text.js';
import type { PriceList } from '../price-list/price-list.js';
import { loadRatingSnapshot } from '../quote/snapshot.js';
import { readCloudKittyUsage, type CloudKittyUsageSource, type WindowProgress } from './cloudkitty-usage.js';
import { Simulation } from './engine.js';
import type { StoredDataframe } from './stored-dataframe.js';
import { readUsageFile } from './usage-file.js';

/** The limits and sources of simulations: the `TARIFF_SIMULATION*` settings (docs/operators/configuration.md). */
export type SimulationLimits = SimulationSettings;

/** Where CloudKitty's stored usage is read; undefined `url`: not configured. */
export interface CloudKittyReading {
  url: string | undefined;
  timeoutMs: number;
  /** Tariff's service token, in Keystone mode; given the token CloudKitty refused, a new one. */
  serviceToken?: (stale?: string) => Promise<string>;
}

/** The usage a simulation reads: CloudKitty's storage, or an uploaded file. */
export type UsageInput = { kind: 'cloudkitty' } | { kind: 'file'; stream: Readable };

/** One simulation asked for. */
export interface SimulationRequest {
  draft: { text: string; format: DocumentFormat };
  begin: Date;
  end: Date;
  effectiveAt: Date;
  /** How many projects and services the movers list. */
  top: number;
  usage: UsageInput;
  /** Who asks (the PyScripts sandbox's fair share). */
  caller: string | undefined;
  /** Aborted when the client is gone. */
  signal: AbortSignal;
  /** Told how far the simulation has come, after every dataframe (the caller throttles). */
  onProgress?: (progress: SimulationProgress) => void;
  /** Told once the draft was read and checked, before the usage is read: what fails later fails mid-way. */
  onStarted?: () => void;
}

/** How far a simulation has come. */
export interface SimulationProgress {
  points: number;
  /** Windows of CloudKitty's usage read, of all (0 of 0 for a usage file). */
  windows: number;
  windowsDone: number;
  elapsedMs: number;
}

/** 503: `TARIFF_SIMULATIONS` simulations run already in this process. */
export class SimulationsBusyError extends TariffError {
  readonly retryAfterSeconds = 30;
  constructor(concurrent: number) {
    super(503, `${concurrent} simulation(s) run already in this server process (TARIFF_SIMULATIONS); try again later.`);
  }
}

/** Points read between two turns of the event loop. */
const POINTS_PER_TURN = 20_000;

/** Runs simulations for one process. */
export class Simulator {
  private running = 0;

  constructor(
    private readonly database: Database,
    private readonly modules: ModuleSet,
    private readonly priceList: PriceList,
    readonly limits: SimulationLimits,
    private readonly cloudKitty: CloudKittyReading,
    private readonly maxDecimalExponent: number,
  ) {}

  /** Whether usage can be read from CloudKitty (`TARIFF_CLOUDKITTY_API_URL` is set). */
  get readsCloudKitty(): boolean {
    return this.cloudKitty.url !== undefined;
  }

  /**
   * Refuses a simulation past the limit of simulations at once, before anything is read.
   *
   * @returns releases the slot; call it once the simulation ended.
   * @throws SimulationsBusyError (503).
   */
  admit(): () => void {
    if (this.running >= this.limits.concurrent) throw new SimulationsBusyError(this.limits.concurrent);
    this.running += 1;
    let released = false;
    return () => {
      if (!released) this.running -= 1;
      released = true;
    };
  }

  /**
   * Runs one simulation to its end.
   *
   * @returns the result (docs/price-list.md §4).
   * @throws InvalidPriceListError (400) for a draft with problems; BadRequestError (400) for bad
   *   times, usage from CloudKitty when it is not configured, or a malformed usage file; TariffError
   *   413 past `maxPoints`, 504 past `timeoutMs`, 502/504 when CloudKitty fails; the abort reason
   *   when the client is gone; the database's errors.
   */
  async run(request: SimulationRequest) {
    const { begin, end, effectiveAt } = request;
    if (end.getTime() <= begin.getTime()) throw new BadRequestError('end must come after begin.');
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout]);
    const sides = await this.priceList.draft(request.draft.text, request.draft.format, effectiveAt, async (transaction) => {
      return (await loadRatingSnapshot(this.database, this.modules, transaction)).snapshot;
    });
    // After the draft: its own faults (every problem of the document) come first.
    if (request.usage.kind === 'cloudkitty' && this.cloudKitty.url === undefined) {
      throw new BadRequestError(
        "No CloudKitty API is configured (TARIFF_CLOUDKITTY_API_URL) to read stored usage from: send a usage file (multipart part 'usage').",
      );
    }
    const simulation = new Simulation(sides.current, sides.draft, {
      effectiveAt: effectiveAt.getTime(),
      maxDistinctPoints: this.limits.maxDistinctPoints,
      maxFindings: this.limits.maxFindings,
      maxDecimalExponent: this.maxDecimalExponent,
      caller: request.caller,
    });
    request.onStarted?.();
    const windows: WindowProgress = { windows: 0, windowsDone: 0 };
    let sinceTurn = 0;
    try {
      for await (const dataframe of this.usage(request, windows, signal)) {
        signal.throwIfAborted();
        const time = dataframe.begin.getTime();
        if (time < begin.getTime() || time >= end.getTime()) continue;
        const before = simulation.points;
        await simulation.add(dataframe);
        if (simulation.points > this.limits.maxPoints) {
          throw new TariffError(
            413,
            `The simulation reads more than ${this.limits.maxPoints} points (TARIFF_SIMULATION_MAX_POINTS): simulate a shorter period.`,
          );
        }
        request.onProgress?.({ points: simulation.points, ...windows, elapsedMs: performance.now() - started });
        sinceTurn += simulation.points - before;
        if (sinceTurn >= POINTS_PER_TURN) {
          sinceTurn = 0;
          await nextTurn();
        }
      }
      signal.throwIfAborted();
    } catch (error) {
      if (timeout.aborted && !request.signal.aborted) {
        throw new TariffError(504, `The simulation took longer than ${this.limits.timeoutMs / 1000} s (TARIFF_SIMULATION_TIMEOUT): simulate a shorter period.`);
      }
      throw error;
    }
    return {
      begin: formatApiDateTime(begin),
      end: formatApiDateTime(end),
      effective_at: formatApiDateTime(effectiveAt),
      revision: sides.revision,
      usage: request.usage.kind,
      ...(await simulation.result(request.top)),
    };
  }

  /** The stored dataframes the request reads. */
  private usage(request: SimulationRequest, windows: WindowProgress, signal: AbortSignal): AsyncIterable<StoredDataframe> {
    if (request.usage.kind === 'file') {
      return readUsageFile(request.usage.stream, { maxLineBytes: this.limits.maxLineBytes, maxDecimalExponent: this.maxDecimalExponent });
    }
    const source: CloudKittyUsageSource = {
      url: this.cloudKitty.url!,
      windowMs: this.limits.windowMs,
      pagePoints: this.limits.pagePoints,
      timeoutMs: this.cloudKitty.timeoutMs,
      serviceToken: this.cloudKitty.serviceToken,
      maxDecimalExponent: this.maxDecimalExponent,
    };
    return readCloudKittyUsage(source, request.begin, request.end, signal, windows);
  }
}
