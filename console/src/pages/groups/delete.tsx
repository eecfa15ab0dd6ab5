/**
 * Deleting a group, with the choice CloudKitty offers explained before confirming (docs/api.md §4):
 * its rules detached (they stay and rate without a group) or deleted with it (its mappings
 * soft-deleted, its thresholds deleted for good).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import type { Group } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import { deleteGroup } from '../../api/hashmap.js';
import { countOf } from '../../format.js';

/** Props of {@link GroupDeletion}: the group and how many rules it holds; `onDeleted` after the delete. */
export interface GroupDeletionProps {
  group: Group;
  mappings: number;
  thresholds: number;
  onDeleted: () => void;
  onCancel: () => void;
}

/** The confirmation of a group's deletion. */
export function GroupDeletion({ group, mappings, thresholds, onDeleted, onCancel }: GroupDeletionProps) {
  const [recursive, setRecursive] = useState(false);
  const [busy, setBusy] = useState(false);
  const [fault, setFault] = useState<string | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [group.group_id]);

  const confirm = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFault(undefined);
    try {
      await deleteGroup(group, recursive);
      onDeleted();
    } catch (error) {
      setFault(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  const rules = `${countOf(mappings, 'mapping')} and ${countOf(thresholds, 'threshold')}`;
  return (
    <form class="group-delete" aria-labelledby="group-delete-title" onSubmit={(event) => void confirm(event)}>
      <h2 id="group-delete-title" ref={heading} tabIndex={-1}>
        Delete group {group.name}
      </h2>
      <p>
        {group.name} holds {rules}. What becomes of them?
      </p>
      <Fault message={fault} />
      <fieldset>
        <legend>Its rules</legend>
        <label>
          <input type="radio" name="group-delete-mode" checked={!recursive} onChange={() => setRecursive(false)} />
          <span>
            <strong>Detach them</strong>: the {rules} stay and go on rating, without a group.
          </span>
        </label>
        <label>
          <input type="radio" name="group-delete-mode" checked={recursive} onChange={() => setRecursive(true)} />
          <span>
            <strong>Delete them with the group</strong>: its {countOf(mappings, 'mapping')} are soft-deleted (they stop rating; their history keeps them) and
            its {countOf(thresholds, 'threshold')} deleted for good.
          </span>
        </label>
      </fieldset>
      <div class="group-actions">
        <button type="submit" class="danger" disabled={busy}>
          {recursive ? `Delete ${group.name} and its rules` : `Delete ${group.name}, keep its rules`}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
