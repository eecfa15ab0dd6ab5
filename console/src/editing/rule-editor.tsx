/**
 * The editor of one hashmap object, opened from the services page: create a service, a field, a
 * mapping or a threshold; change, end or delete a mapping; change or delete a threshold; delete a
 * service or a field. Every write goes through the v1 API; the server's fault appears at the field
 * it concerns (to be built).
 */
import type { Catalog, Field, Mapping, Service, Threshold } from '../catalog.js';

/** A rule's parent: a service or one of its fields. */
export type RuleParent = { service_id: string } | { field_id: string };

/** What to edit: a new object when the existing one is absent. */
export type EditRequest =
  | { kind: 'service'; service?: Service }
  | { kind: 'field'; service_id: string; field?: Field }
  | { kind: 'mapping'; parent: RuleParent; mapping?: Mapping }
  | { kind: 'threshold'; parent: RuleParent; threshold?: Threshold };

/** Props of {@link RuleEditor}: `onClose(true)` after a write, so the page reloads. */
export interface RuleEditorProps {
  request: EditRequest;
  catalog: Catalog;
  onClose: (changed: boolean) => void;
}

/** The editor (a dialog): placeholder until built. */
export function RuleEditor({ request, onClose }: RuleEditorProps) {
  return (
    <div role="dialog" aria-label={`Edit ${request.kind}`}>
      <button type="button" onClick={() => onClose(false)}>
        Close
      </button>
    </div>
  );
}
