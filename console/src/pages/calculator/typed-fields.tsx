/**
 * The quote-only calculator's fields: each field of the usage typed as a name and a value (the
 * point's metadata), rows added and removed at will, since the service's fields cannot be read.
 */

/** One typed field of the usage; `key` keeps a row's identity when another is removed. */
export interface TypedField {
  key: number;
  name: string;
  value: string;
}

/**
 * The field values the quote sends, by field name (names trimmed; a row without a name is left
 * out, an empty value leaves its field out of the usage), or why they cannot be sent: a field
 * named twice.
 */
export function typedFieldValues(fields: TypedField[]): { values: Record<string, string> } | { fault: string } {
  const values: Record<string, string> = {};
  const named = new Set<string>();
  for (const field of fields) {
    const name = field.name.trim();
    if (name === '') continue;
    if (named.has(name)) return { fault: `The field ${name} is given twice: give each field once.` };
    named.add(name);
    values[name] = field.value;
  }
  return { values };
}

/** A new empty row, keyed after the rows there are. */
export function emptyTypedField(fields: TypedField[]): TypedField {
  return { key: fields.reduce((highest, field) => Math.max(highest, field.key), 0) + 1, name: '', value: '' };
}

/** The fieldset of typed fields, with a button to add one and one to remove each. */
export function TypedFields({ fields, onChange }: { fields: TypedField[]; onChange: (fields: TypedField[]) => void }) {
  const change = (key: number, member: 'name' | 'value', text: string) =>
    onChange(fields.map((field) => (field.key === key ? { ...field, [member]: text } : field)));
  return (
    <fieldset aria-describedby="calculator-typed-fields-hint">
      <legend>Fields</legend>
      <small id="calculator-typed-fields-hint" class="hint">
        Each field the usage carries (a metadata key, such as flavor_name) and its value, spelled as the rating configuration spells them; a field without a
        value is absent from the usage.
      </small>
      {fields.map((field, index) => {
        const number = index + 1;
        return (
          <div key={field.key} class="calculator-typed-field">
            <div>
              <label for={`calculator-field-name-${field.key}`}>Field {number} name</label>
              <input
                id={`calculator-field-name-${field.key}`}
                type="text"
                autocomplete="off"
                value={field.name}
                onInput={(event) => change(field.key, 'name', event.currentTarget.value)}
              />
            </div>
            <div>
              <label for={`calculator-field-value-${field.key}`}>Field {number} value</label>
              <input
                id={`calculator-field-value-${field.key}`}
                type="text"
                autocomplete="off"
                value={field.value}
                onInput={(event) => change(field.key, 'value', event.currentTarget.value)}
              />
            </div>
            <button type="button" class="calculator-remove-field" onClick={() => onChange(fields.filter((other) => other.key !== field.key))}>
              Remove field {number}
            </button>
          </div>
        );
      })}
      <button type="button" class="calculator-add-field" onClick={() => onChange([...fields, emptyTypedField(fields)])}>
        Add a field
      </button>
    </fieldset>
  );
}
