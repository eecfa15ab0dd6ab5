/** Where a compile error lies in an editor's document. */
import type { Text } from '@codemirror/state';
import type { SourceError } from '../api/scripts.js';

export type { SourceError } from '../api/scripts.js';

/**
 * The document range to mark for `error`: the character at its line and column (clamped into the
 * document: a column past the line's end marks the line's last character, an empty line a point at
 * its start), the document's first line when the error has no line.
 */
export function sourcePosition(document: Text, error: SourceError): { from: number; to: number } {
  const line = document.line(Math.min(Math.max(error.line, 1), document.lines));
  if (line.length === 0) return { from: line.from, to: line.from };
  if (error.line < 1) return { from: line.from, to: line.to };
  const from = Math.min(line.from + Math.max(error.column, 1) - 1, line.to - 1);
  return { from, to: from + 1 };
}
