/**
 * The editor of services and fields: create one (by name), or delete one with everything under
 * it. CloudKitty cannot rename either, so an existing one offers only its deletion.
 */
import { useState } from 'preact/hooks';
import { createField, createService, deleteField, deleteService } from '../api/hashmap.js';
import { serviceOf, type Catalog, type Field, type Service } from '../catalog.js';
import { Fault } from '../components/fault.js';
import { DeleteConfirmation } from './delete-confirmation.js';
import { EditorActions, TextControl } from './editor-controls.js';
import { useEditorForm } from './editor-form.js';

/** `1 field`, `2 mappings`. */
function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** What deleting removes with a service or field, counted from the catalog. */
function rulesUnder(catalog: Catalog, belongs: (rule: { service_id: string | null; field_id: string | null }) => boolean): string {
  return `${countOf(catalog.mappings.filter(belongs).length, 'mapping')} and ${countOf(catalog.thresholds.filter(belongs).length, 'threshold')}`;
}

/** Creates a service (`service` undefined) or deletes one. `onClose(true)` after a write. */
export function ServiceForm({ service, catalog, onClose }: { service?: Service; catalog: Catalog; onClose: (changed: boolean) => void }) {
  const form = useEditorForm();
  const [name, setName] = useState('');
  if (service !== undefined) {
    const fields = catalog.fields.filter((field) => field.service_id === service.service_id).length;
    const rules = rulesUnder(catalog, (rule) => serviceOf(catalog, rule)?.service_id === service.service_id);
    return (
      <div class="editor-form">
        <Fault message={form.fault} />
        <p>
          Service <strong>{service.name}</strong>: {countOf(fields, 'field')}, {rules}. CloudKitty cannot rename a service.
        </p>
        <DeleteConfirmation
          subject={`service ${service.name}`}
          consequence={`Deleting service ${service.name} also deletes its ${countOf(fields, 'field')}, ${rules}, for good: they leave no history.`}
          busy={form.busy}
          onDelete={() => void form.run(() => deleteService(service), {}).then((done) => done && onClose(true))}
        />
        <EditorActions busy={form.busy} onCancel={() => onClose(false)} />
      </div>
    );
  }
  return (
    <form
      class="editor-form"
      onSubmit={(event) => {
        event.preventDefault();
        void form.run(() => createService(name.trim()), { name: 'name' }).then((done) => done && onClose(true));
      }}
    >
      <Fault message={form.fault} />
      <TextControl
        name="name"
        label="Name"
        value={name}
        onInput={setName}
        maxLength={255}
        error={form.errors.name}
        hint="What CloudKitty's collector calls the metric, e.g. instance."
      />
      <EditorActions submitLabel="Create service" busy={form.busy} onCancel={() => onClose(false)} />
    </form>
  );
}

/** Creates a field of service `serviceId` (`field` undefined) or deletes one. `onClose(true)` after a write. */
export function FieldForm({ serviceId, field, catalog, onClose }: { serviceId: string; field?: Field; catalog: Catalog; onClose: (changed: boolean) => void }) {
  const form = useEditorForm();
  const [name, setName] = useState('');
  const serviceName = catalog.serviceById.get(serviceId)?.name ?? 'an unknown service';
  if (field !== undefined) {
    const rules = rulesUnder(catalog, (rule) => rule.field_id === field.field_id);
    return (
      <div class="editor-form">
        <Fault message={form.fault} />
        <p>
          Field <strong>{field.name}</strong> of service {serviceName}: {rules}. CloudKitty cannot rename a field.
        </p>
        <DeleteConfirmation
          subject={`field ${field.name}`}
          consequence={`Deleting field ${field.name} also deletes its ${rules}, for good: they leave no history.`}
          busy={form.busy}
          onDelete={() => void form.run(() => deleteField(field), {}).then((done) => done && onClose(true))}
        />
        <EditorActions busy={form.busy} onCancel={() => onClose(false)} />
      </div>
    );
  }
  return (
    <form
      class="editor-form"
      onSubmit={(event) => {
        event.preventDefault();
        void form.run(() => createField(serviceId, name.trim()), { name: 'name' }).then((done) => done && onClose(true));
      }}
    >
      <Fault message={form.fault} />
      <p>On service {serviceName}.</p>
      <TextControl
        name="name"
        label="Name"
        value={name}
        onInput={setName}
        maxLength={255}
        error={form.errors.name}
        hint="A metadata key of the service's resources, e.g. flavor."
      />
      <EditorActions submitLabel="Create field" busy={form.busy} onCancel={() => onClose(false)} />
    </form>
  );
}
