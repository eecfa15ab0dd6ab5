/** The threshold editor: create, change (every attribute but its parent) or delete a threshold. */
import { useState } from 'preact/hooks';
import type { Catalog, Threshold } from '../catalog.js';
import { Fault } from '../components/fault.js';
import { DeleteConfirmation } from './delete-confirmation.js';
import { EditorActions, SelectControl, TextControl } from './editor-controls.js';
import { useEditorForm } from './editor-form.js';
import type { RuleParent } from './edit-request.js';
import { decimalInput, groupOptions, TYPE_OPTIONS } from './rule-values.js';
import { changeThreshold, createThreshold, deleteThreshold, thresholdInputs, type ThresholdInputs } from './threshold-writes.js';

/** The threshold's inputs, each also the API attribute its faults name. */
const CONTROLS = { level: 'level', cost: 'cost', type: 'type', group_id: 'group_id', tenant_id: 'tenant_id' };

/** Creates a threshold on `parent` (`threshold` undefined) or edits one. `onClose(true)` after a write. */
export function ThresholdForm({
  parent,
  threshold,
  catalog,
  onClose,
}: {
  parent: RuleParent;
  threshold?: Threshold;
  catalog: Catalog;
  onClose: (changed: boolean) => void;
}) {
  const form = useEditorForm();
  const [inputs, setInputs] = useState<ThresholdInputs>(() => thresholdInputs(threshold));
  const control = (name: keyof ThresholdInputs & string) => ({
    name,
    value: inputs[name],
    onInput: (value: string) => setInputs((previous) => ({ ...previous, [name]: value })),
    error: form.errors[name],
  });

  const submit = () => {
    let changed = true;
    void form
      .run(async () => {
        if (threshold === undefined) await createThreshold(parent, inputs);
        else changed = await changeThreshold(threshold, inputs);
      }, CONTROLS)
      .then((done) => done && onClose(changed));
  };

  return (
    <>
      <form
        class="editor-form"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <p class="editor-note">A threshold applies from its level of quantity on, for as long as it exists: it has no validity dates.</p>
        <Fault message={form.fault} />
        <div class="editor-grid">
          <TextControl {...control('level')} label="Level" inputMode="decimal" hint="The quantity from which it applies (0 or more)." />
          <TextControl
            {...control('cost')}
            label="Cost"
            inputMode="decimal"
            hint="Flat: per unit of quantity per collection period; rate: a multiplier (0.9 = 10% off)."
          />
          <SelectControl {...control('type')} label="Type" options={TYPE_OPTIONS} />
          <SelectControl {...control('group_id')} label="Group" options={groupOptions(catalog)} />
          <TextControl {...control('tenant_id')} label="Tenant" maxLength={255} hint="A project id; empty: every tenant." />
        </div>
        <EditorActions submitLabel={threshold === undefined ? 'Create threshold' : 'Save changes'} busy={form.busy} onCancel={() => onClose(false)} />
      </form>
      {threshold !== undefined && (
        <DeleteConfirmation
          subject={`threshold at level ${decimalInput(threshold.level)}`}
          consequence={`Deleting the threshold at level ${decimalInput(threshold.level)} removes it for good (thresholds keep no history).`}
          busy={form.busy}
          onDelete={() => void form.run(() => deleteThreshold(threshold), {}).then((done) => done && onClose(true))}
        />
      )}
    </>
  );
}
