/**
 * A running script's forms. Versioning (docs/api.md §6) lets a running script change only its end;
 * a new source takes a new version: the running one ends at a time T and a copy with the new
 * source, under the same name, starts at T.
 */
import { useState } from 'preact/hooks';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { formatDateTime } from '../../validity.js';
import { createScriptVersion, endScript, type Script } from '../../api/scripts.js';
import { dateTimeValue } from './scheduled.js';
import { ScriptSource } from './source.js';
import { useScriptWrite } from './write.js';

/** The start of the next whole hour (UTC) as a `datetime-local` value: the default end of a running script. */
function nextHour(now: Date = new Date()): string {
  const next = new Date(now);
  next.setUTCMinutes(60, 0, 0);
  return toUtcDateTimeLocal(next);
}

/** The forms of a running script (`script` read with its source); `onSaved` after a write. */
export function RunningScriptForms({ script, onSaved }: { script: Script; onSaved: () => void }) {
  return (
    <>
      <p class="script-explanation" id="script-running-explanation">
        This script is running since {formatDateTime(script.start)}: its source, description and start can no longer change, only its end. To change its source,
        create a new version below: this one ends when the new one starts.
      </p>
      <ScriptSource id="script-running-source" source={script.data ?? ''} label={`Source of script ${script.name} (read only)`} readOnly />
      <EndForm script={script} onSaved={onSaved} />
      <NewVersionForm script={script} onSaved={onSaved} />
    </>
  );
}

function EndForm({ script, onSaved }: { script: Script; onSaved: () => void }) {
  const write = useScriptWrite();
  const [end, setEnd] = useState(script.end === null ? nextHour() : dateTimeValue(script.end));
  return (
    <form
      class="script-form"
      aria-labelledby="script-end-title"
      onSubmit={(event) => {
        event.preventDefault();
        void write.run(() => endScript(script, fromUtcDateTimeLocal(end) ?? null)).then((saved) => saved && onSaved());
      }}
    >
      <h3 id="script-end-title">End the script</h3>
      <Fault message={write.fault} />
      <UtcDateTimeInput id="script-end-at" label="Ends at" value={end} onInput={setEnd} hint="Now or later; empty: until further notice." />
      <div class="script-actions">
        <button type="submit" disabled={write.busy}>
          Set the end
        </button>
      </div>
    </form>
  );
}

function NewVersionForm({ script, onSaved }: { script: Script; onSaved: () => void }) {
  const write = useScriptWrite();
  const [start, setStart] = useState(nextHour());
  const [description, setDescription] = useState(script.description ?? '');
  const [source, setSource] = useState(script.data ?? '');
  return (
    <form
      class="script-form"
      aria-labelledby="script-version-title"
      onSubmit={(event) => {
        event.preventDefault();
        void write
          .run(() => createScriptVersion(script, source, description === '' ? null : description, fromUtcDateTimeLocal(start) ?? ''))
          .then((saved) => saved && onSaved());
      }}
    >
      <h3 id="script-version-title">New version</h3>
      <p class="hint">
        Ends <strong>{script.name}</strong> at the new version’s start, then creates the new version with the same name and this source, until{' '}
        {script.end === null ? 'further notice' : formatDateTime(script.end)}. If the new source is refused, the running version keeps its end.
      </p>
      <Fault message={write.fault} />
      <div class="script-fields">
        <UtcDateTimeInput id="script-version-start" label="New version starts" value={start} onInput={setStart} hint="In the future." />
        <div>
          <label for="script-version-description">Description</label>
          <input id="script-version-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
      </div>
      <ScriptSource
        id="script-version-source"
        source={script.data ?? ''}
        label={`Source of the new version of ${script.name}`}
        readOnly={false}
        onChange={setSource}
        error={write.sourceError}
      />
      <div class="script-actions">
        <button type="submit" disabled={write.busy}>
          Create the new version
        </button>
      </div>
    </form>
  );
}
