/**
 * Price list: the whole rating configuration as one document (docs/price-list.md). Export it as a
 * file; upload or paste one and see its dry-run diff (or its problems, by line and column); then,
 * after confirming, apply exactly what was reviewed at the effective time, refused (409) if the
 * configuration changed since the dry run.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, messageOf } from '../../api/client.js';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { formatDateTime } from '../../validity.js';
import { PriceListDiffView } from './diff.js';
import {
  detectFormat,
  problemsOf,
  refusesUnversionedChanges,
  submitPriceList,
  type DocumentFormat,
  type PriceListDiff,
  type PriceListProblem,
  type SubmitOptions,
} from '../../api/price-list.js';
import { PriceListExport } from './export.js';
import { PriceListImpact } from './impact.js';
import { PriceListProblems } from './problems.js';
import './price-list.css';

/** A dry run's diff and exactly what it was computed for: the apply sends the same. */
interface Review {
  /** Which dry run it is: the impact section starts afresh for each. */
  id: number;
  diff: PriceListDiff;
  text: string;
  format: DocumentFormat;
  options: Omit<SubmitOptions, 'dryRun' | 'ifRevision'>;
}

/** The range of `text` covering line `line` (1-based), for selecting it. */
function lineRange(text: string, line: number): [number, number] {
  let start = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf('\n', start);
    if (next < 0) break;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  return [start, end < 0 ? text.length : end];
}

/** The price-list page. */
export function PriceList() {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [formatChoice, setFormatChoice] = useState<'detect' | DocumentFormat>('detect');
  const [effectiveAt, setEffectiveAt] = useState(() => toUtcDateTimeLocal(new Date()));
  const [effectiveAtChosen, setEffectiveAtChosen] = useState(false);
  const [unversionedNow, setUnversionedNow] = useState(false);
  const [review, setReview] = useState<Review | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [applied, setApplied] = useState<PriceListDiff | undefined>();
  const [fault, setFault] = useState<string | undefined>();
  const [unversionedRefused, setUnversionedRefused] = useState(false);
  const [problems, setProblems] = useState<PriceListProblem[] | undefined>();
  const [busy, setBusy] = useState(false);
  const reviews = useRef(0);
  const documentArea = useRef<HTMLTextAreaElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  /** Anything edited makes the dry run stale: it must be run again before an apply. */
  const edited = () => {
    setReview(undefined);
    setConfirming(false);
  };

  const showOutcome = (error: unknown) => {
    setFault(messageOf(error));
    setProblems(problemsOf(error));
    setUnversionedRefused(refusesUnversionedChanges(error));
  };

  const clearOutcome = () => {
    setFault(undefined);
    setProblems(undefined);
    setUnversionedRefused(false);
  };

  const dryRun = async (event: Event) => {
    event.preventDefault();
    const format = formatChoice === 'detect' ? detectFormat(text, fileName) : formatChoice;
    const options = { effectiveAt: effectiveAtChosen ? fromUtcDateTimeLocal(effectiveAt) : undefined, unversionedNow };
    setBusy(true);
    clearOutcome();
    setApplied(undefined);
    setConfirming(false);
    try {
      const diff = await submitPriceList(text, format, { ...options, dryRun: true });
      setReview({ id: ++reviews.current, diff, text, format, options });
    } catch (error) {
      setReview(undefined);
      showOutcome(error);
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (review === undefined) return;
    setBusy(true);
    clearOutcome();
    try {
      const diff = await submitPriceList(review.text, review.format, { ...review.options, dryRun: false, ifRevision: review.diff.revision });
      setApplied(diff);
      setReview(undefined);
    } catch (error) {
      showOutcome(error);
      // A conflict means the reviewed diff is stale: review again before applying.
      if (error instanceof ApiError && error.status === 409) setReview(undefined);
    } finally {
      setConfirming(false);
      setBusy(false);
    }
  };

  const showLine = (line: number) => {
    const area = documentArea.current;
    if (area === null) return;
    const [start, end] = lineRange(area.value, line);
    area.focus();
    area.setSelectionRange(start, end);
    const lineHeight = Number.parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  };

  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (file === undefined) return;
    setText(await file.text());
    setFileName(file.name);
    edited();
    clearOutcome();
  };

  return (
    <section class="price-list">
      <h1>Price list</h1>
      <p class="hint">
        The whole rating configuration as one YAML or JSON document: services, fields, mappings, thresholds, groups, scripts and module states. A document
        applies in one transaction: changed rules end and their new versions start at the effective time.
      </p>
      <PriceListExport
        onEdit={(exported, format) => {
          setText(exported);
          setFormatChoice(format);
          setFileName(undefined);
          edited();
          documentArea.current?.focus();
        }}
      />

      <section aria-labelledby="price-list-document-heading">
        <h2 id="price-list-document-heading">Review and apply a document</h2>
        <form class="price-list-form" onSubmit={(event) => void dryRun(event)}>
          <div>
            <label for="price-list-file">Upload a file (YAML or JSON)</label>
            <input
              id="price-list-file"
              type="file"
              accept=".yaml,.yml,.json,application/json,application/yaml"
              onChange={(event) => void upload(event.currentTarget)}
            />
          </div>
          <div>
            <label for="price-list-text">Document{fileName === undefined ? '' : ` (from ${fileName})`}</label>
            <textarea
              id="price-list-text"
              ref={documentArea}
              rows={16}
              spellcheck={false}
              value={text}
              onInput={(event) => {
                setText(event.currentTarget.value);
                edited();
              }}
            />
          </div>
          <div class="price-list-row">
            <label for="price-list-format">Format</label>
            <select
              id="price-list-format"
              value={formatChoice}
              onChange={(event) => {
                setFormatChoice(event.currentTarget.value as 'detect' | DocumentFormat);
                edited();
              }}
            >
              <option value="detect">Detect (file name, or JSON when it starts with an object)</option>
              <option value="yaml">YAML</option>
              <option value="json">JSON</option>
            </select>
          </div>
          <UtcDateTimeInput
            id="price-list-effective-at"
            label="Effective at"
            value={effectiveAt}
            onInput={(value) => {
              setEffectiveAt(value);
              setEffectiveAtChosen(value !== '');
              edited();
            }}
            hint={
              effectiveAtChosen
                ? 'Changed rules switch at this time; it must not be in the past.'
                : 'Left as it is, the changes take effect the moment they are applied (now); a later time schedules them.'
            }
          />
          <div class="price-list-check">
            <input
              id="price-list-unversioned-now"
              type="checkbox"
              checked={unversionedNow}
              aria-describedby="price-list-unversioned-now-hint"
              onChange={(event) => {
                setUnversionedNow(event.currentTarget.checked);
                edited();
              }}
            />
            <label for="price-list-unversioned-now">Change thresholds and module states now (unversioned_now)</label>
            <small id="price-list-unversioned-now-hint" class="hint">
              Thresholds and module states have no validity interval: they change when the document is applied, whatever the effective time. With a later
              effective time, the server refuses a document that changes them unless this is ticked.
            </small>
          </div>
          <button type="submit" disabled={busy || text.trim() === ''}>
            Show the changes (dry run)
          </button>
        </form>
      </section>

      <Fault message={fault} />
      {unversionedRefused && (
        <p class="hint" data-unversioned-explained>
          This document changes thresholds or module states, which are not versioned: applied now with a later effective time, they would switch at once while
          the mappings and scripts wait. Tick “Change thresholds and module states now” to accept that, or apply those changes in a separate document effective
          now.
        </p>
      )}
      {problems !== undefined && <PriceListProblems problems={problems} onShowLine={showLine} />}

      <div aria-live="polite">{review !== undefined && <PriceListDiffView diff={review.diff} title="Changes of this document (dry run)" />}</div>
      {/* Outside the live regions: its progress is its own status, not the page's news. */}
      {review !== undefined && <PriceListImpact key={review.id} draft={{ text: review.text, format: review.format }} />}
      <div aria-live="polite">
        {review !== undefined && (
          <>
            {review.diff.changes.length > 0 && (
              <div class="price-list-apply">
                {confirming ? (
                  <div role="group" aria-labelledby="price-list-confirm-heading" class="price-list-confirm">
                    <h3 id="price-list-confirm-heading">Apply {review.diff.changes.length} changes?</h3>
                    <p>
                      {review.options.effectiveAt === undefined
                        ? 'They take effect now.'
                        : `They take effect at ${formatDateTime(review.options.effectiveAt)}.`}{' '}
                      The apply is refused if the configuration changed since revision {review.diff.revision}.
                    </p>
                    <button type="button" ref={confirmButton} disabled={busy} onClick={() => void apply()}>
                      Apply
                    </button>{' '}
                    <button type="button" onClick={() => setConfirming(false)}>
                      Cancel
                    </button>
                  </div>
                ) : (
                  <button type="button" onClick={() => setConfirming(true)}>
                    Apply these changes…
                  </button>
                )}
              </div>
            )}
          </>
        )}
        {applied !== undefined && <PriceListDiffView diff={applied} title={`Applied: configuration revision ${applied.revision}`} />}
      </div>
    </section>
  );
}
