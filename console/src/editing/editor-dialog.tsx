/**
 * The editor's modal dialog: a `<dialog>` opened with `showModal()` (focus moves inside and stays
 * there, the page behind is inert), titled by its heading; Escape closes it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './editing.css';

/** A modal dialog titled `title`; `onClose` is called on Escape. */
export function EditorDialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
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
