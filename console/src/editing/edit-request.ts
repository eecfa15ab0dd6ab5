/**
 * What the rule editor is asked to edit, in a module of its own: the forms, the writes and the
 * services page all name it, and the editor imports the forms (a type beside the editor would
 * close an import cycle).
 */
import type { Field, Mapping, Service, Threshold } from '../catalog.js';

/** A rule's parent: a service or one of its fields. */
export type RuleParent = { service_id: string } | { field_id: string };

/** What to edit: a new object when the existing one is absent. */
export type EditRequest =
  | { kind: 'service'; service?: Service }
  | { kind: 'field'; service_id: string; field?: Field }
  | { kind: 'mapping'; parent: RuleParent; mapping?: Mapping }
  | { kind: 'threshold'; parent: RuleParent; threshold?: Threshold };
