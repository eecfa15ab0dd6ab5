/**
 * A script's source in the Python editor, which is loaded on first use (its own chunk, CodeMirror
 * included), with a compile error shown at its line and column: a lint marker in the editor and
 * the same text beside it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { Fault } from '../../components/fault.js';
import type { PythonEditor, SourceError } from '../../editor/python-editor.js';

/** Props of {@link ScriptSource}. The first `source` is shown; later ones are ignored (remount with a `key`). */
export interface ScriptSourceProps {
  /** Unique in the page: the error text's id derives from it. */
  id: string;
  source: string;
  /** The editor's accessible name. */
  label: string;
  readOnly: boolean;
  onChange?: (source: string) => void;
  /** The compile error to show, if any. */
  error?: SourceError;
}

/** The source editor with its compile error. */
export function ScriptSource({ id, source, label, readOnly, onChange, error }: ScriptSourceProps) {
  const container = useRef<HTMLDivElement>(null);
  const editor = useRef<PythonEditor>();
  const changed = useRef(onChange);
  changed.current = onChange;
  const [loadFault, setLoadFault] = useState<string | undefined>();
  const [ready, setReady] = useState(false);
  const errorId = `${id}-error`;

  useEffect(() => {
    let cancelled = false;
    import('../../editor/python-editor.js').then(
      ({ createPythonEditor }) => {
        if (cancelled || container.current === null) return;
        editor.current = createPythonEditor({ parent: container.current, source, label, readOnly, onChange: (text) => changed.current?.(text) });
        setReady(true);
      },
      (failure: unknown) => setLoadFault(`The editor could not be loaded: ${messageOf(failure)}`),
    );
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = undefined;
    };
  }, []);

  useEffect(() => {
    if (ready) editor.current?.showError(error, errorId);
  }, [ready, error, errorId]);

  return (
    <div class="script-source">
      <Fault message={loadFault} />
      {!ready && loadFault === undefined && <p aria-busy="true">Loading the editor…</p>}
      <div ref={container} class="script-source-editor" data-editor={ready ? 'ready' : 'loading'} />
      {error !== undefined && (
        <p id={errorId} role="alert" class="fault script-source-error">
          {describeSourceError(error)}
        </p>
      )}
    </div>
  );
}

/** A compile error as text: `line 3, column 5: invalid syntax` (no position when Python gave none). */
function describeSourceError(error: SourceError): string {
  return error.line > 0 ? `line ${error.line}, column ${error.column}: ${error.message}` : error.message;
}
