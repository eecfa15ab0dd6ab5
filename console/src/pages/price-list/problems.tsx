/**
 * The problems of a refused price list (docs/price-list.md §2), in text order: each with its path
 * in the document's terms and, where the text tells them, its line and column, which a button
 * selects in the document being edited.
 */
import type { PriceListProblem } from '../../api/price-list.js';

/** Where a problem is, as text: `line 8, column 4` or nothing. */
export function positionText(problem: PriceListProblem): string {
  if (problem.line === undefined) return '';
  return problem.column === undefined ? `line ${problem.line}` : `line ${problem.line}, column ${problem.column}`;
}

/** The refused document's problems; `onShowLine` selects a line (1-based) in the document. */
export function PriceListProblems({ problems, onShowLine }: { problems: PriceListProblem[]; onShowLine: (line: number) => void }) {
  return (
    <section class="price-list-problems" aria-labelledby="price-list-problems-heading">
      <h2 id="price-list-problems-heading">
        The document has {problems.length} problem{problems.length === 1 ? '' : 's'}
      </h2>
      <ol>
        {problems.map((problem, index) => (
          <li key={index}>
            {problem.line !== undefined && <span class="price-list-position">{positionText(problem)}</span>} <code>{problem.path}</code>: {problem.message}{' '}
            {problem.line !== undefined && (
              <button type="button" class="link" onClick={() => onShowLine(problem.line as number)}>
                Show line {problem.line}
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
