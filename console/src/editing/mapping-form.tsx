/**
 * The mapping editor: every attribute of a new or scheduled mapping; only the end of a running
 * one (with CloudKitty's rule versioning explained, and a new version offered); nothing of an
 * ended one. Any mapping can be deleted (softly: it stays in its history).
 */
import { useState } from 'preact/hooks';
import { mappingName, type Catalog, type Mapping } from '../catalog.js';
import { Fault } from '../components/fault.js';
import { formatDateTime, validityState } from '../validity.js';
import { DeleteConfirmation } from './delete-confirmation.js';
import { EditorActions, SelectControl, TextControl } from './editor-controls.js';
import { useEditorForm } from './editor-form.js';
import { MappingVersion } from './mapping-version.js';
import { changeMapping, createMapping, deleteMapping, mappingInputs, type MappingInputs } from './mapping-writes.js';
import type { RuleParent } from './edit-request.js';
import { groupOptions, TYPE_OPTIONS } from './rule-values.js';

/** What the editor says about a mapping's state: why it can or cannot change. */
function VersioningNote({ mapping }: { mapping: Mapping }) {
  const state = validityState(mapping.start, mapping.end);
  if (state === 'scheduled') {
    return <p class="editor-note">Scheduled: this mapping starts on {formatDateTime(mapping.start)}. Until then everything but its name can change.</p>;
  }
  if (state === 'ended') {
    return (
      <p class="editor-note">
        Ended on {formatDateTime(mapping.end)}: this mapping has rated its periods and CloudKitty keeps it as it was, so it cannot change. It can only be
        deleted (it stays in its history).
      </p>
    );
  }
  return (
    <p class="editor-note" id="editor-versioning">
      Running since {formatDateTime(mapping.start)}
      {mapping.end === null ? ', with no end' : `, until ${formatDateTime(mapping.end)}`}. CloudKitty's rule versioning never changes a price that is already
      rating: a running mapping can only get an end. To change its cost, end it and create a new version with the same name starting when it ends — “New
      version” below does both.
    </p>
  );
}

/** Creates a mapping on `parent` (`mapping` undefined) or edits one. `onClose(true)` after a write. */
export function MappingForm({
  parent,
  mapping,
  catalog,
  onClose,
}: {
  parent: RuleParent;
  mapping?: Mapping;
  catalog: Catalog;
  onClose: (changed: boolean) => void;
}) {
  const form = useEditorForm();
  const [inputs, setInputs] = useState<MappingInputs>(() => mappingInputs(mapping));
  const state = mapping === undefined ? undefined : validityState(mapping.start, mapping.end);
  const onlyEnd = state === 'running';
  const nothing = state === 'ended';
  const isFieldMapping = 'field_id' in parent;
  const control = (name: keyof MappingInputs & string) => ({
    name,
    value: inputs[name],
    onInput: (value: string) => setInputs((previous) => ({ ...previous, [name]: value })),
    error: form.errors[name],
    readOnly: nothing || (onlyEnd && name !== 'end') || (mapping !== undefined && name === 'name'),
  });
  const inputNames = ['cost', 'type', 'group_id', 'tenant_id', 'name', 'description', 'start', 'end', ...(isFieldMapping ? ['value'] : [])];
  const controls = Object.fromEntries(inputNames.map((name) => [name, name]));

  const submit = () => {
    let changed = true;
    void form
      .run(async () => {
        if (mapping === undefined) await createMapping(parent, inputs);
        else changed = await changeMapping(mapping, inputs);
      }, controls)
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
        {mapping !== undefined && <VersioningNote mapping={mapping} />}
        <Fault message={form.fault} />
        <div class="editor-grid">
          {isFieldMapping && <TextControl {...control('value')} label="Value" maxLength={255} hint="The field's value this mapping prices, e.g. m1.small." />}
          <TextControl
            {...control('cost')}
            label="Cost"
            inputMode="decimal"
            hint="Flat: per unit of quantity per collection period; rate: a multiplier (0.9 = 10% off)."
          />
          <SelectControl {...control('type')} label="Type" options={TYPE_OPTIONS} />
          <SelectControl {...control('group_id')} label="Group" options={groupOptions(catalog)} />
          <TextControl {...control('tenant_id')} label="Tenant" maxLength={255} hint="A project id; empty: every tenant." />
          <TextControl
            {...control('name')}
            label="Name"
            maxLength={32}
            hint={mapping === undefined ? 'Empty: a random name. Its new versions keep it.' : 'A mapping’s versions share its name.'}
          />
          <TextControl {...control('description')} label="Description" maxLength={256} />
          <TextControl {...control('start')} type="datetime-local" label="Start" hint={mapping === undefined ? 'Empty: now.' : undefined} />
          <TextControl {...control('end')} type="datetime-local" label="End" hint="Exclusive; empty: no end." />
        </div>
        <EditorActions
          submitLabel={mapping === undefined ? 'Create mapping' : nothing ? undefined : onlyEnd ? 'Save end' : 'Save changes'}
          busy={form.busy}
          onCancel={() => onClose(false)}
        />
      </form>
      {onlyEnd && mapping !== undefined && <MappingVersion mapping={mapping} onCreated={() => onClose(true)} />}
      {mapping !== undefined && (
        <DeleteConfirmation
          subject={`mapping ${mappingName(catalog, mapping)}`}
          consequence={`Deleting mapping ${mappingName(catalog, mapping)} means it rates nothing any more; it stays in its history as deleted.`}
          busy={form.busy}
          onDelete={() => void form.run(() => deleteMapping(mapping), {}).then((done) => done && onClose(true))}
        />
      )}
    </>
  );
}
