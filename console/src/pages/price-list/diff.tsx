/**
 * A price list's diff as the server answers it (docs/price-list.md §2): how many rules each
 * action touches, and every change with its attributes before and after, by names (the ids the
 * server adds to `before` are left out), the attributes that change marked.
 */
import { useState } from 'preact/hooks';
import { formatDateTime } from '../../validity.js';
import type { PriceListChange, PriceListDiff } from '../../api/price-list.js';

/** The actions in the order the counts show them. */
const ACTIONS = ['added', 'replaced', 'ended', 'deleted', 'updated', 'created'] as const;

/** How many changes are listed before a "show all" button (a 10,000-rule diff stays responsive). */
const CHANGES_LISTED = 500;

/** Attributes that are datetimes, shown as the console shows times. */
const DATETIME_ATTRIBUTES = new Set(['start', 'end', 'effective_at']);

/** An attribute worth showing: names, not ids (`tenant_id` is a tenant's own name for it). */
function shown(attribute: string): boolean {
  return attribute === 'tenant_id' || !attribute.endsWith('_id');
}

/** An attribute's value as text: `—` for null, times in UTC, a script's checksum shortened. */
function valueText(attribute: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (DATETIME_ATTRIBUTES.has(attribute) && typeof value === 'string') return formatDateTime(value);
  if (attribute === 'checksum' && typeof value === 'string') return `${value.slice(0, 12)}…`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** One side of a change: its attributes, those that differ from the other side marked. */
function Attributes({ values, other }: { values: Record<string, unknown> | undefined; other: Record<string, unknown> | undefined }) {
  if (values === undefined) return <span class="hint">—</span>;
  const attributes = Object.keys(values).filter(shown);
  return (
    <dl class="price-list-attributes">
      {attributes.map((attribute) => {
        const text = valueText(attribute, values[attribute]);
        const changed = other !== undefined && valueText(attribute, other[attribute]) !== text;
        return (
          <div key={attribute} class={changed ? 'changed' : undefined}>
            <dt>{attribute}</dt>
            <dd>{changed ? <mark title="changes">{text}</mark> : text}</dd>
          </div>
        );
      })}
    </dl>
  );
}

/** One row of the changes table. */
function ChangeRow({ change }: { change: PriceListChange }) {
  return (
    <tr data-action={change.action}>
      <td>{change.action}</td>
      <td>{change.resource}</td>
      <td class="price-list-path">{change.path}</td>
      <td>
        <Attributes values={change.before} other={change.after} />
      </td>
      <td>
        <Attributes values={change.after} other={change.before} />
      </td>
    </tr>
  );
}

/** A diff: its counts and its changes; `title` is its heading (a dry run's or an apply's). */
export function PriceListDiffView({ diff, title }: { diff: PriceListDiff; title: string }) {
  const [listAll, setListAll] = useState(false);
  const listed = listAll ? diff.changes : diff.changes.slice(0, CHANGES_LISTED);
  return (
    <section class="price-list-diff" aria-labelledby="price-list-diff-heading">
      <h2 id="price-list-diff-heading">{title}</h2>
      <p>
        Effective at {formatDateTime(diff.effective_at)}; configuration revision {diff.revision}
        {diff.dry_run ? ' (nothing written yet)' : ''}.
      </p>
      <dl class="counts price-list-counts">
        {ACTIONS.map((action) => (
          <div key={action}>
            <dt>{action}</dt>
            <dd data-count={action}>{diff.counts[action] ?? 0}</dd>
          </div>
        ))}
      </dl>
      <p class="hint">
        Replaced: the stored rule ends at the effective time and the new one starts then (history kept). Ended: a rule in force stops. Deleted: a scheduled rule
        never starts. Updated: a threshold, a module state or a rule’s end changes in place. Created: a service, field or group.
      </p>
      {diff.changes.length === 0 ? (
        <p class="hint">No change: the configuration already says what this document says.</p>
      ) : (
        <>
          <table class="price-list-changes">
            <caption>Changes, with the attributes before and after (marked where they change)</caption>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Where</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {listed.map((change, index) => (
                <ChangeRow key={index} change={change} />
              ))}
            </tbody>
          </table>
          {listed.length < diff.changes.length && (
            <button type="button" onClick={() => setListAll(true)}>
              List all {diff.changes.length} changes
            </button>
          )}
        </>
      )}
    </section>
  );
}
