/**
 * A JSON number kept with its source text, for the places where the text matters and not only
 * the value: `2.0` and `2` are the same JS number but Python reads a float and an int, whose
 * `str()` CloudKitty compares with field mappings (rating.md §5). The HTTP layer makes these
 * where a route asks for it (`http/json-number-text.ts`); everything else sees plain numbers.
 */
export class JsonNumberText {
  /** The nearest double (`Infinity` past the largest one, as `JSON.parse` gives). */
  readonly value: number;

  /** @param text - the number exactly as the JSON text wrote it (`2.0`, `1E400`, `-0`). */
  constructor(readonly text: string) {
    this.value = Number(text);
  }

  /** Serialised as the plain JSON number, as if it had been read by `JSON.parse`. */
  toJSON(): number {
    return this.value;
  }
}
