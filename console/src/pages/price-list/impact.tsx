/**
 * The impact of a reviewed draft before its apply (docs/price-list.md §4): stored usage over a
 * period priced with the current rules and with the draft's from an effective time, read by the
 * server from CloudKitty or from an uploaded usage file. Progress shows as the answer streams;
 * the result shows only once its line arrived whole, and a fault (before or while the simulation
 * ran) shows alone, never beside a partial result.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { simulate, type SimulationProgress, type SimulationResult, type UsageSource } from '../../api/simulation.js';
import type { DocumentFormat } from '../../api/price-list.js';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { countOf } from '../../format.js';
import { lastFullMonth } from './impact-period.js';
import { ImpactResult } from './impact-result.js';
import './impact.css';

/** Where the usage comes from, as the form chooses it. */
type SourceChoice = 'cloudkitty' | 'file';

/** What the section shows below its form. */
type Outcome =
  | { state: 'idle' }
  | { state: 'running'; progress: SimulationProgress | undefined }
  | { state: 'done'; result: SimulationResult; source: string }
  | { state: 'failed'; fault: string }
  | { state: 'stopped' };

/** A progress line in words: points read, CloudKitty's windows when it reads them, time so far. */
function progressText(progress: SimulationProgress | undefined): string {
  if (progress === undefined) return 'Sending the draft…';
  const windows = progress.windows > 0 ? `, ${progress.windows_done.toLocaleString('en')} of ${countOf(progress.windows, 'window')}` : '';
  return `Reading usage: ${countOf(progress.points, 'point')} read${windows}, ${Math.round(progress.elapsed_ms / 1000)} s.`;
}

/** The impact section of the reviewed `draft`. */
export function PriceListImpact({ draft }: { draft: { text: string; format: DocumentFormat } }) {
  const [defaults] = useState(() => lastFullMonth(new Date()));
  const [begin, setBegin] = useState(() => toUtcDateTimeLocal(defaults.begin));
  const [end, setEnd] = useState(() => toUtcDateTimeLocal(defaults.end));
  const [effectiveAt, setEffectiveAt] = useState(begin);
  const [effectiveAtChosen, setEffectiveAtChosen] = useState(false);
  const [source, setSource] = useState<SourceChoice>('cloudkitty');
  const [file, setFile] = useState<File | undefined>();
  const [formFault, setFormFault] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome>({ state: 'idle' });
  const running = useRef<AbortController | undefined>(undefined);

  // A simulation still running when the section goes (the draft edited, the page left) is stopped.
  useEffect(() => () => running.current?.abort(), []);

  const run = async (event: Event) => {
    event.preventDefault();
    setFormFault(undefined);
    const from = fromUtcDateTimeLocal(begin);
    const to = fromUtcDateTimeLocal(end);
    const effective = effectiveAtChosen ? fromUtcDateTimeLocal(effectiveAt) : undefined;
    if (from === undefined || to === undefined) return setFormFault('Give the period’s begin and end.');
    if (Date.parse(to) <= Date.parse(from)) return setFormFault('The end must come after the begin.');
    if (effectiveAtChosen && effective === undefined) return setFormFault('Give the time the draft takes effect, or clear it to use the begin.');
    if (source === 'file' && file === undefined) return setFormFault('Choose a usage file.');
    const usage: UsageSource = source === 'file' && file !== undefined ? { kind: 'file', file, name: file.name } : { kind: 'cloudkitty' };
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setOutcome({ state: 'running', progress: undefined });
    try {
      const result = await simulate(
        { draft, begin: from, end: to, effectiveAt: effective, usage },
        (progress) => {
          if (!controller.signal.aborted) setOutcome({ state: 'running', progress });
        },
        controller.signal,
      );
      if (!controller.signal.aborted) setOutcome({ state: 'done', result, source: usage.kind === 'file' ? `the file ${usage.name}` : 'CloudKitty' });
    } catch (error) {
      if (!controller.signal.aborted) setOutcome({ state: 'failed', fault: messageOf(error) });
    } finally {
      if (running.current === controller) running.current = undefined;
    }
  };

  const stop = () => {
    running.current?.abort();
    running.current = undefined;
    setOutcome({ state: 'stopped' });
  };

  return (
    <section class="impact" aria-labelledby="impact-heading">
      <h2 id="impact-heading">Impact on stored usage</h2>
      <p class="hint">
        Prices the usage of a period twice, with the rules as they are now and with this document’s from the time it takes effect, and shows what changes in
        money. Nothing is written.
      </p>
      <form class="impact-form" onSubmit={(event) => void run(event)}>
        <div class="impact-times">
          <UtcDateTimeInput
            id="impact-begin"
            label="Usage from"
            value={begin}
            onInput={(value) => {
              setBegin(value);
              if (!effectiveAtChosen) setEffectiveAt(value);
            }}
          />
          <UtcDateTimeInput
            id="impact-end"
            label="Usage until"
            value={end}
            onInput={setEnd}
            hint="Dataframes that begin before it. By default: the last full month."
          />
          <UtcDateTimeInput
            id="impact-effective-at"
            label="Draft in force from"
            value={effectiveAt}
            onInput={(value) => {
              setEffectiveAt(value);
              setEffectiveAtChosen(value !== '' && value !== begin);
            }}
            hint="Points before it keep the current price on both sides. By default: the period’s begin."
          />
        </div>
        <fieldset class="impact-source">
          <legend>Usage</legend>
          <div class="impact-choice">
            <input id="impact-source-cloudkitty" type="radio" name="impact-source" checked={source === 'cloudkitty'} onChange={() => setSource('cloudkitty')} />
            <label for="impact-source-cloudkitty">Read by the server from CloudKitty (its stored dataframes)</label>
          </div>
          <div class="impact-choice">
            <input id="impact-source-file" type="radio" name="impact-source" checked={source === 'file'} onChange={() => setSource('file')} />
            <label for="impact-source-file">A usage file</label>
          </div>
          {source === 'file' && (
            <div class="impact-file">
              <label for="impact-file">Usage file (JSON Lines of CloudKitty v2 dataframes, optionally gzip)</label>
              <input
                id="impact-file"
                type="file"
                accept=".jsonl,.ndjson,.json,.gz,application/x-ndjson,application/jsonl,application/gzip"
                onChange={(event) => setFile(event.currentTarget.files?.[0])}
              />
              <small class="hint">
                One dataframe a line, as CloudKitty’s GET /v2/dataframes answers them. The server prices it as it arrives: the whole file must arrive within its
                request timeout (TARIFF_REQUEST_TIMEOUT, 300 s by default).
              </small>
            </div>
          )}
        </fieldset>
        <div class="impact-actions">
          <button type="submit" disabled={outcome.state === 'running'}>
            Show the impact
          </button>
          {outcome.state === 'running' && (
            <button type="button" onClick={stop}>
              Stop
            </button>
          )}
        </div>
      </form>
      <Fault message={formFault} />
      <p role="status" class="impact-progress">
        {outcome.state === 'running' ? progressText(outcome.progress) : outcome.state === 'stopped' ? 'Stopped: no result.' : ''}
      </p>
      {outcome.state === 'failed' && (
        <div class="impact-failed" data-impact-fault>
          <Fault message={outcome.fault} />
          <p class="hint">The simulation did not complete: no result is shown.</p>
        </div>
      )}
      {outcome.state === 'done' && <ImpactResult result={outcome.result} source={outcome.source} />}
    </section>
  );
}
