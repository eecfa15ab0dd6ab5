/**
 * The editor's modal dialog: a `<dialog>` opened with `showModal()` (focus moves to its first
 * editable control and stays inside, the page behind is inert), titled by its heading; Escape
 * closes it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './editing.css';

/** The controls focus may start on, first in document order wins. */
const FIRST_EDITABLE = 'input:not([readonly]):not([disabled]), select:not([disabled]), textarea:not([readonly]), button:not([disabled])';

/** A modal dialog titled `title`; `onClose` is called on Escape. */
export function EditorDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) {
      element.showModal();
      // Into the first control that can change (a running mapping's end, not its read-only value).
      element.querySelector<HTMLElement>(FIRST_EDITABLE)?.focus();
    }
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="editor"
      aria-labelledby="editor-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="editor-title">{title}</h2>
      {children}
    </dialog>
  );
}
