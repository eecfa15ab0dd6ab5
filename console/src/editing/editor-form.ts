/**
 * The state every editor form shares: the server's faults placed at their inputs (through
 * {@link faultInput}) or for the whole form, focus moved to the first input refused, and whether
 * a write is under way.
 */
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/client.js';
import { faultInput } from './fault-fields.js';

/** The id of the control that edits `name` (`cost` → `editor-cost`); labels and errors point at it. */
export function controlId(name: string): string {
  return `editor-${name}`;
}

/** Faults by control name (see {@link controlId}), the form's own fault, and the busy flag. */
export interface EditorForm {
  /** The server's message for each control it concerns. */
  errors: Readonly<Record<string, string>>;
  /** The server's message that concerns no control of the form. */
  fault: string | undefined;
  /** True while a write is under way (the submit buttons are disabled). */
  busy: boolean;
  /**
   * Runs `write`; resolves true when it succeeded. A thrown fault is placed at the control named
   * by `controls[attribute]` (API attribute → control name) when its message concerns one of
   * them, else shown for the form; resolves false then.
   */
  run: (write: () => Promise<unknown>, controls: Readonly<Record<string, string>>) => Promise<boolean>;
  /** Forgets the faults (e.g. when another action of the same dialog starts). */
  clear: () => void;
}

/** The shared state of one editor form. */
export function useEditorForm(): EditorForm {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fault, setFault] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [focusTarget, setFocusTarget] = useState<{ control: string } | undefined>();

  useEffect(() => {
    if (focusTarget !== undefined) document.getElementById(controlId(focusTarget.control))?.focus();
  }, [focusTarget]);

  const clear = () => {
    setErrors({});
    setFault(undefined);
  };

  const run = async (write: () => Promise<unknown>, controls: Readonly<Record<string, string>>): Promise<boolean> => {
    clear();
    setBusy(true);
    try {
      await write();
      return true;
    } catch (error) {
      const message = messageOf(error);
      const attribute = faultInput(message, Object.keys(controls));
      const control = attribute === undefined ? undefined : controls[attribute];
      if (control === undefined) {
        setFault(message);
      } else {
        setErrors({ [control]: message });
        // A new object each time, so that the same control refused twice gets the focus again.
        setFocusTarget({ control });
      }
      return false;
    } finally {
      setBusy(false);
    }
  };

  return { errors, fault, busy, run, clear };
}
