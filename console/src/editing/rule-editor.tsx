/**
 * The editor of one hashmap object, opened from the services page: create a service, a field, a
 * mapping or a threshold; change, end or delete a mapping (or give a running one a new version);
 * change or delete a threshold; delete a service or a field. Every write goes through the v1 API;
 * the server's fault appears at the input it concerns (fault-fields.ts), or for the whole form.
 */
import { hasGeneratedName, type Catalog, type Mapping } from '../catalog.js';
import type { EditRequest } from './edit-request.js';
import { decimalInput, placeName } from './rule-values.js';
import { EditorDialog } from './editor-dialog.js';
import { MappingForm } from './mapping-form.js';
import { FieldForm, ServiceForm } from './structure-forms.js';
import { ThresholdForm } from './threshold-form.js';

/** Props of {@link RuleEditor}: `onClose(true)` after a write, so the page reloads. */
export interface RuleEditorProps {
  request: EditRequest;
  catalog: Catalog;
  onClose: (changed: boolean) => void;
}

/** A mapping in the dialog's title: `Mapping m1-large`, or by its value when its name is generated (issue 26). */
function mappingTitle(mapping: Mapping): string {
  if (!hasGeneratedName(mapping)) return `Mapping ${mapping.name}`;
  return mapping.value === null ? 'Mapping' : `Mapping for ${mapping.value}`;
}

/** The dialog's title, by names: `New mapping on compute / flavor`, `Threshold at level 100 on volume`. */
function titleOf(request: EditRequest, catalog: Catalog): string {
  switch (request.kind) {
    case 'service':
      return request.service === undefined ? 'New service' : `Service ${request.service.name}`;
    case 'field':
      return request.field === undefined ? `New field on ${placeName(catalog, request)}` : `Field ${placeName(catalog, request.field)}`;
    case 'mapping':
      return `${request.mapping === undefined ? 'New mapping' : mappingTitle(request.mapping)} on ${placeName(catalog, request.parent)}`;
    case 'threshold':
      return `${request.threshold === undefined ? 'New threshold' : `Threshold at level ${decimalInput(request.threshold.level)}`} on ${placeName(catalog, request.parent)}`;
  }
}

/** The editor: a modal dialog with the form for `request`; Escape or Cancel closes it unchanged. */
export function RuleEditor({ request, catalog, onClose }: RuleEditorProps) {
  return (
    <EditorDialog title={titleOf(request, catalog)} onClose={() => onClose(false)}>
      {request.kind === 'service' && <ServiceForm service={request.service} catalog={catalog} onClose={onClose} />}
      {request.kind === 'field' && <FieldForm serviceId={request.service_id} field={request.field} catalog={catalog} onClose={onClose} />}
      {request.kind === 'mapping' && <MappingForm parent={request.parent} mapping={request.mapping} catalog={catalog} onClose={onClose} />}
      {request.kind === 'threshold' && <ThresholdForm parent={request.parent} threshold={request.threshold} catalog={catalog} onClose={onClose} />}
    </EditorDialog>
  );
}
