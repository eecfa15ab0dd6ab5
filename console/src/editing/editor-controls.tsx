/**
 * The editor's labelled controls. Each shows the server's fault for it as a text the control is
 * described by (`aria-describedby`), marks itself `aria-invalid`, and may carry a hint.
 */
import type { ComponentChildren } from 'preact';
import { controlId } from './editor-form.js';

/** What every control takes. */
interface ControlProps {
  /** The control's name (its id is {@link controlId} of it). */
  name: string;
  /** The visible label. */
  label: string;
  /** The server's message about this control, if any. */
  error?: string;
  /** A sentence under the control. */
  hint?: ComponentChildren;
}

/** The label, the control and its texts; the control gets the ids and aria attributes. */
function Labelled({ name, label, error, hint, control }: ControlProps & { control: (describedBy: string | undefined) => ComponentChildren }) {
  const id = controlId(name);
  const describedBy = [error === undefined ? undefined : `${id}-error`, hint === undefined ? undefined : `${id}-hint`].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error === undefined ? 'editor-control' : 'editor-control editor-invalid'}>
      <label for={id}>{label}</label>
      {control(describedBy)}
      {error !== undefined && (
        <span id={`${id}-error`} class="editor-error">
          {error}
        </span>
      )}
      {hint !== undefined && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** A text input (`datetime-local` too: then its value is UTC to the second, and the label says so). */
export function TextControl(
  props: ControlProps & {
    value: string;
    onInput: (value: string) => void;
    readOnly?: boolean;
    type?: 'text' | 'datetime-local';
    inputMode?: 'decimal';
    maxLength?: number;
  },
) {
  const { name, value, onInput, readOnly = false, type = 'text', inputMode, maxLength, error } = props;
  return (
    <Labelled
      {...props}
      label={type === 'datetime-local' ? `${props.label} (UTC)` : props.label}
      control={(describedBy) => (
        <input
          id={controlId(name)}
          name={name}
          type={type}
          step={type === 'datetime-local' ? 1 : undefined}
          inputMode={inputMode}
          maxLength={maxLength}
          value={value}
          readOnly={readOnly}
          aria-invalid={error === undefined ? undefined : 'true'}
          aria-describedby={describedBy}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
      )}
    />
  );
}

/** A select among `options` (`value` and shown `label` each); disabled when read-only. */
export function SelectControl(
  props: ControlProps & {
    value: string;
    onInput: (value: string) => void;
    options: readonly { value: string; label: string }[];
    readOnly?: boolean;
  },
) {
  const { name, value, onInput, options, readOnly = false, error } = props;
  return (
    <Labelled
      {...props}
      control={(describedBy) => (
        <select
          id={controlId(name)}
          name={name}
          value={value}
          disabled={readOnly}
          aria-invalid={error === undefined ? undefined : 'true'}
          aria-describedby={describedBy}
          onInput={(event) => onInput(event.currentTarget.value)}
        >
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** The form's buttons: the submit button (none when `submitLabel` is undefined) and Cancel. */
export function EditorActions({ submitLabel, busy, onCancel }: { submitLabel?: string; busy: boolean; onCancel: () => void }) {
  return (
    <div class="editor-actions">
      {submitLabel !== undefined && (
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      )}
      <button type="button" onClick={onCancel}>
        {submitLabel === undefined ? 'Close' : 'Cancel'}
      </button>
    </div>
  );
}
