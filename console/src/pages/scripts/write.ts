/** The state of a script form's write: busy, the server's fault, or a compile error at its line. */
import { useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import type { SourceError } from '../../editor/source-position.js';
import { compileErrorOf } from '../../api/scripts.js';

/** A form's write in progress and what the server answered. */
export interface ScriptWrite {
  busy: boolean;
  /** The server's message for a refusal other than a compile error. */
  fault: string | undefined;
  /** The compile error of the source sent, shown in the editor. */
  sourceError: SourceError | undefined;
  /** Runs `write`, keeping the refusal; true when it succeeded. */
  run: (write: () => Promise<unknown>) => Promise<boolean>;
}

/** The write state of one form. */
export function useScriptWrite(): ScriptWrite {
  const [busy, setBusy] = useState(false);
  const [fault, setFault] = useState<string | undefined>();
  const [sourceError, setSourceError] = useState<SourceError | undefined>();
  const run = async (write: () => Promise<unknown>) => {
    setBusy(true);
    setFault(undefined);
    setSourceError(undefined);
    try {
      await write();
      return true;
    } catch (error) {
      const compileError = compileErrorOf(error);
      if (compileError === undefined) setFault(messageOf(error));
      else setSourceError(compileError);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, fault, sourceError, run };
}
