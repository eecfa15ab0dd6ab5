/**
 * A new version of a running mapping (CloudKitty's rule versioning): the running one ends when the
 * new one, with the same name and another cost, starts.
 */
import { useState } from 'preact/hooks';
import type { Mapping } from '../catalog.js';
import { Fault } from '../components/fault.js';
import { TextControl } from './editor-controls.js';
import { useEditorForm } from './editor-form.js';
import { createMappingVersion } from './mapping-writes.js';
import { dateTimeFromInput, dateTimeInput, decimalInput } from './rule-values.js';

/** The start of the next whole hour (UTC), as an ISO text: the new version's default start. */
function nextHour(now: Date = new Date()): string {
  const next = new Date(now);
  next.setUTCMinutes(60, 0, 0);
  return next.toISOString();
}

/** The "New version" section of a running mapping's editor. `onCreated` after both writes. */
export function MappingVersion({ mapping, onCreated }: { mapping: Mapping; onCreated: () => void }) {
  const form = useEditorForm();
  const [cost, setCost] = useState(decimalInput(mapping.cost));
  const [start, setStart] = useState(dateTimeInput(nextHour()));
  return (
    <form
      class="editor-form editor-version"
      aria-labelledby="editor-version-title"
      onSubmit={(event) => {
        event.preventDefault();
        void form
          .run(() => createMappingVersion(mapping, cost, dateTimeFromInput(start) ?? ''), {
            cost: 'version-cost',
            start: 'version-start',
            end: 'version-start',
          })
          .then((done) => done && onCreated());
      }}
    >
      <h3 id="editor-version-title">Change the cost from a given time</h3>
      <p>
        Ends <strong>{mapping.name}</strong> when the new version starts, then creates the new version: the same name, value, type, group and tenant, with the
        new cost, until {mapping.end === null ? 'further notice' : 'the current end'}.
      </p>
      <Fault message={form.fault} />
      <div class="editor-grid">
        <TextControl name="version-cost" label="New cost" inputMode="decimal" value={cost} onInput={setCost} error={form.errors['version-cost']} />
        <TextControl
          name="version-start"
          type="datetime-local"
          label="New version starts"
          value={start}
          onInput={setStart}
          error={form.errors['version-start']}
          hint="In the future; the running version ends at this time."
        />
      </div>
      <div class="editor-actions">
        <button type="submit" disabled={form.busy}>
          New version
        </button>
      </div>
    </form>
  );
}
