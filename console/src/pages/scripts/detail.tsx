/**
 * One script opened from the list: its attributes, its source in the Python editor and what its
 * state allows (docs/api.md §6): a scheduled script changes freely, a running one only gets an end
 * or a new version, an ended one stays as it is. Any script may be deleted (soft: its history keeps it).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { Fault } from '../../components/fault.js';
import { StateBadge } from '../../components/state-badge.js';
import { formatDateTime, validityState } from '../../validity.js';
import { deleteScript, readScript, type Script } from '../../api/scripts.js';
import { RunningScriptForms } from './running.js';
import { ScheduledScriptForm } from './scheduled.js';
import { ScriptSource } from './source.js';
import { useResource } from '../../use-resource.js';

/** Props of {@link ScriptDetail}: `onChanged` after any write (the list reloads), `onDeleted` after a delete. */
export interface ScriptDetailProps {
  script: Script;
  onChanged: () => void;
  onDeleted: () => void;
  onClose: () => void;
}

/** The opened script. */
export function ScriptDetail({ script: listed, onChanged, onDeleted, onClose }: ScriptDetailProps) {
  const [version, setVersion] = useState(0);
  const { value: script, fault, loading } = useResource<Script>(() => readScript(listed), [listed.script_id, version]);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), [listed.script_id]);

  const saved = () => {
    setVersion((count) => count + 1);
    onChanged();
  };

  const current = script ?? listed;
  const state = validityState(current.start, current.end);
  return (
    <section class="script-detail" aria-labelledby="script-detail-title">
      <h2 id="script-detail-title" ref={heading} tabIndex={-1}>
        Script {listed.name} <StateBadge state={state} />
      </h2>
      <p>
        <a href={`/console/history/scripts/${encodeURIComponent(listed.name)}`}>History of {listed.name}</a>{' '}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </p>
      <Fault message={fault} />
      {script === undefined ? (
        loading && <p aria-busy="true">Loading the script…</p>
      ) : (
        <>
          <ScriptAttributes script={script} />
          {state === 'scheduled' && <ScheduledScriptForm key={script.checksum + (script.start ?? '')} script={script} onSaved={saved} />}
          {state === 'running' && <RunningScriptForms key={script.end ?? ''} script={script} onSaved={saved} />}
          {state === 'ended' && (
            <>
              <p class="script-explanation">
                This script ended on {formatDateTime(script.end)}: it can no longer change. Create a new script with the same name to rate again.
              </p>
              <ScriptSource id="script-ended-source" source={script.data ?? ''} label={`Source of script ${script.name} (read only)`} readOnly />
            </>
          )}
          <DeleteScript script={script} onDeleted={onDeleted} />
        </>
      )}
    </section>
  );
}

function ScriptAttributes({ script }: { script: Script }) {
  return (
    <dl class="script-attributes">
      <div>
        <dt>Start</dt>
        <dd>{formatDateTime(script.start)}</dd>
      </div>
      <div>
        <dt>End</dt>
        <dd>{script.end === null ? 'until further notice' : formatDateTime(script.end)}</dd>
      </div>
      <div>
        <dt>Description</dt>
        <dd>{script.description ?? '—'}</dd>
      </div>
      <div>
        <dt>Checksum (SHA-512)</dt>
        <dd class="script-checksum">{script.checksum}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          {formatDateTime(script.created_at)}
          {script.created_by === null ? '' : ` by ${script.created_by}`}
        </dd>
      </div>
      <div>
        <dt>Last updated by</dt>
        <dd>{script.updated_by ?? '—'}</dd>
      </div>
    </dl>
  );
}

function DeleteScript({ script, onDeleted }: { script: Script; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [fault, setFault] = useState<string | undefined>();
  const remove = async () => {
    setFault(undefined);
    try {
      await deleteScript(script);
      onDeleted();
    } catch (error) {
      setFault(messageOf(error));
    }
  };
  return (
    <div class="script-delete">
      <h3>Delete</h3>
      <Fault message={fault} />
      {confirming ? (
        <div role="group" aria-labelledby="script-delete-question">
          <p id="script-delete-question">
            Delete {script.name}? It stops rating at once; the deleted version stays in its history and no longer blocks its name.
          </p>
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete {script.name}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete this script…
        </button>
      )}
    </div>
  );
}
