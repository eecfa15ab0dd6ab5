/**
 * The console's Python editor: CodeMirror 6 with Python highlighting, line numbers, undo history,
 * the default key bindings and lint markers. The scripts page loads this module with a dynamic
 * `import()`, so that CodeMirror is its own chunk, fetched only when a script's source is shown
 * (docs/console-decision.md).
 *
 * Tab indents inside the editor; Escape then Tab moves the focus out of it (CodeMirror's way out
 * of a Tab-capturing editor).
 */
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { python } from '@codemirror/lang-python';
import { sourcePosition, type SourceError } from './source-position.js';

export type { SourceError } from './source-position.js';

/** What {@link createPythonEditor} needs. */
export interface PythonEditorOptions {
  /** The element the editor is built in. */
  parent: HTMLElement;
  /** The source shown first. */
  source: string;
  /** The editor's accessible name (its content element's `aria-label`). */
  label: string;
  /** Whether the source may be changed. */
  readOnly: boolean;
  /** Told the whole source after every change. */
  onChange?: (source: string) => void;
}

/** A running editor. */
export interface PythonEditor {
  /** The source as it stands. */
  source(): string;
  /**
   * Marks `error` at its line and column (1-based, as Python counts) with a lint diagnostic, and
   * the content as invalid (`aria-invalid`, described by the element `describedBy` names); with
   * `undefined`, clears both.
   */
  showError(error: SourceError | undefined, describedBy?: string): void;
  /** Removes the editor from the page. */
  destroy(): void;
}

/** Builds a Python editor in `options.parent`. */
export function createPythonEditor(options: PythonEditorOptions): PythonEditor {
  const validity = new Compartment();
  const contentAttributes = (invalid: boolean, describedBy?: string) =>
    EditorView.contentAttributes.of({
      'aria-label': options.label,
      ...(invalid ? { 'aria-invalid': 'true' } : {}),
      ...(describedBy === undefined ? {} : { 'aria-describedby': describedBy }),
    });
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.source,
      extensions: [
        lineNumbers(),
        history(),
        indentOnInput(),
        python(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorState.readOnly.of(options.readOnly),
        EditorView.editable.of(!options.readOnly),
        // The style elements CodeMirror adds carry the page's nonce: the console's CSP allows no other inline style.
        EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? ''),
        validity.of(contentAttributes(false)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    source: () => view.state.doc.toString(),
    showError(error, describedBy) {
      const diagnostics: Diagnostic[] = [];
      if (error !== undefined) {
        const { from, to } = sourcePosition(view.state.doc, error);
        diagnostics.push({ from, to, severity: 'error', message: error.message });
      }
      view.dispatch(setDiagnostics(view.state, diagnostics), {
        effects: validity.reconfigure(contentAttributes(error !== undefined, error === undefined ? undefined : describedBy)),
      });
    },
    destroy: () => view.destroy(),
  };
}
