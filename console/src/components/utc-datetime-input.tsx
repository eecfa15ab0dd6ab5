/**
 * A date and time in UTC, to the second, typed in a `datetime-local` control: the browser's
 * control has no time zone, so the console reads and writes its value as UTC and says so in the
 * label.
 */
import './utc-datetime-input.css';

/** `date` as a `datetime-local` value in UTC, to the second (`2026-11-24T16:26:05`). */
export function toUtcDateTimeLocal(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/**
 * A `datetime-local` value read as UTC, as the API's ISO text (`2026-11-24T16:26:05Z`); undefined
 * when it is empty or not a date.
 */
export function fromUtcDateTimeLocal(value: string): string | undefined {
  if (value === '') return undefined;
  const withSeconds = value.length === 16 ? `${value}:00` : value;
  const iso = `${withSeconds}Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/** A labelled `datetime-local` control whose value is UTC (`value` in {@link toUtcDateTimeLocal}'s form). */
export function UtcDateTimeInput({
  id,
  label,
  value,
  onInput,
  hint,
}: {
  /** The control's id (its label points at it). */
  id: string;
  /** What the time is for; " (UTC)" is added. */
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** A sentence under the control (what an empty or default value means). */
  hint?: string;
}) {
  return (
    <div class="utc-datetime">
      <label for={id}>{label} (UTC)</label>
      <input
        id={id}
        type="datetime-local"
        step={1}
        value={value}
        aria-describedby={hint === undefined ? undefined : `${id}-hint`}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      {hint !== undefined && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}
