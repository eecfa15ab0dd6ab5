/** Deleting from the editor, in two steps: the button, then what deleting does and a confirmation. */
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A "Delete …" button that first says what deleting does (`consequence`) and asks again; the
 * confirmation button gets the focus. `onDelete` makes the call.
 */
export function DeleteConfirmation({ subject, consequence, busy, onDelete }: { subject: string; consequence: string; busy: boolean; onDelete: () => void }) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <div class="editor-delete">
        <button type="button" class="editor-danger" onClick={() => setAsking(true)}>
          Delete {subject}
        </button>
      </div>
    );
  }
  return (
    <div class="editor-delete" role="group" aria-labelledby="editor-delete-consequence">
      <p id="editor-delete-consequence">{consequence}</p>
      <button ref={confirm} type="button" class="editor-danger" disabled={busy} onClick={onDelete}>
        Yes, delete {subject}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </div>
  );
}
