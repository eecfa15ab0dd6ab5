/**
 * A scheduled script's form: before its start every attribute but the name may change (source,
 * description, start, end; docs/api.md §6), and the new source is compiled by the server.
 */
import { useState } from 'preact/hooks';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, toUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { updateScheduledScript, type Script } from '../../api/scripts.js';
import { ScriptSource } from './source.js';
import { useScriptWrite } from './write.js';

/** An API date as a UTC `datetime-local` value, empty for none. */
export function dateTimeValue(value: string | null): string {
  return value === null ? '' : toUtcDateTimeLocal(new Date(value));
}

/** The change form of a scheduled script (`script` read with its source); `onSaved` after the write. */
export function ScheduledScriptForm({ script, onSaved }: { script: Script; onSaved: () => void }) {
  const write = useScriptWrite();
  const [description, setDescription] = useState(script.description ?? '');
  const [start, setStart] = useState(dateTimeValue(script.start));
  const [end, setEnd] = useState(dateTimeValue(script.end));
  const [source, setSource] = useState(script.data ?? '');

  const submit = (event: Event) => {
    event.preventDefault();
    void write
      .run(() =>
        updateScheduledScript(script, {
          data: source,
          description: description === '' ? null : description,
          start: fromUtcDateTimeLocal(start) ?? script.start ?? undefined,
          end: fromUtcDateTimeLocal(end) ?? null,
        }),
      )
      .then((saved) => saved && onSaved());
  };

  return (
    <form class="script-form" aria-labelledby="script-change-title" onSubmit={submit}>
      <h3 id="script-change-title">Change the scheduled script</h3>
      <p class="hint">It has not started yet: its source, description and dates may all change.</p>
      <Fault message={write.fault} />
      <div class="script-fields">
        <div>
          <label for="script-change-description">Description</label>
          <input id="script-change-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
        <UtcDateTimeInput id="script-change-start" label="Start" value={start} onInput={setStart} hint="In the future." />
        <UtcDateTimeInput id="script-change-end" label="End" value={end} onInput={setEnd} hint="Empty: until further notice." />
      </div>
      <ScriptSource
        id="script-change-source"
        source={script.data ?? ''}
        label={`Source of script ${script.name}`}
        readOnly={false}
        onChange={setSource}
        error={write.sourceError}
      />
      <div class="script-actions">
        <button type="submit" disabled={write.busy}>
          Save changes
        </button>
      </div>
    </form>
  );
}
