/**
 * The form that creates a script: name, description, start and end (UTC) and its Python source.
 * The server compiles the source first; a compile error is shown at its line in the editor.
 */
import { useState } from 'preact/hooks';
import { Fault } from '../../components/fault.js';
import { fromUtcDateTimeLocal, UtcDateTimeInput } from '../../components/utc-datetime-input.js';
import { createScript } from '../../api/scripts.js';
import { ScriptSource } from './source.js';
import { useScriptWrite } from './write.js';

/** A new script's source, as a hint of what a script does. */
const TEMPLATE = `# The rated data frame is in \`data\`; change its prices in place.\n`;

/** The "New script" form; `onCreated(name)` after the server created it, `onCancel` to close it. */
export function ScriptCreateForm({ onCreated, onCancel }: { onCreated: (name: string) => void; onCancel: () => void }) {
  const write = useScriptWrite();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [source, setSource] = useState(TEMPLATE);

  const submit = (event: Event) => {
    event.preventDefault();
    void write
      .run(() =>
        createScript({
          name: name.trim(),
          data: source,
          description: description === '' ? null : description,
          start: fromUtcDateTimeLocal(start),
          end: fromUtcDateTimeLocal(end) ?? null,
        }),
      )
      .then((created) => created && onCreated(name.trim()));
  };

  return (
    <form class="script-form" aria-labelledby="script-create-title" onSubmit={submit}>
      <h2 id="script-create-title" tabIndex={-1}>
        New script
      </h2>
      <Fault message={write.fault} />
      <div class="script-fields">
        <div>
          <label for="script-name">Name</label>
          <input id="script-name" required maxLength={255} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <div>
          <label for="script-description">Description</label>
          <input id="script-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </div>
        <UtcDateTimeInput id="script-start" label="Start" value={start} onInput={setStart} hint="Empty: now." />
        <UtcDateTimeInput id="script-end" label="End" value={end} onInput={setEnd} hint="Empty: until further notice." />
      </div>
      <ScriptSource
        id="script-create-source"
        source={TEMPLATE}
        label="Source of the new script"
        readOnly={false}
        onChange={setSource}
        error={write.sourceError}
      />
      <div class="script-actions">
        <button type="submit" disabled={write.busy}>
          Create script
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
