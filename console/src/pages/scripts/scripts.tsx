/**
 * Scripts: the pyscripts module's scripts (docs/api.md §5, §6), each with its state (scheduled,
 * running, ended), dates, description and checksum, a link to its history; one opened shows its
 * source in the Python editor (loaded lazily) and what its state allows; a new script can be created.
 * Deleted scripts are shown on request (issue 26), with when and by whom; they open only as history.
 */
import { useState } from 'preact/hooks';
import { Fault } from '../../components/fault.js';
import { Notice } from '../../components/notice.js';
import { StateBadge } from '../../components/state-badge.js';
import { formatDateTime, validityState } from '../../validity.js';
import { listScripts, type Script } from '../../api/scripts.js';
import { ScriptCreateForm } from './create.js';
import { ScriptDetail } from './detail.js';
import { useResource } from '../../use-resource.js';
import './scripts.css';

/** How many hex digits of a checksum the list shows. */
const CHECKSUM_SHOWN = 12;

/** What the page shows below the list: nothing, the new script form, or the script with this id. */
type Opened = { kind: 'none' } | { kind: 'new' } | { kind: 'script'; scriptId: string };

/** The scripts page. */
export function Scripts() {
  const [notice, setNotice] = useState<string | undefined>();
  const [opened, setOpened] = useState<Opened>({ kind: 'none' });
  const [withDeleted, setWithDeleted] = useState(false);
  const { value: scripts, fault, loading, reload } = useResource<Script[]>(() => listScripts(withDeleted), [withDeleted]);

  const openedScript = opened.kind === 'script' ? scripts?.find((script) => script.script_id === opened.scriptId) : undefined;
  return (
    <section class="scripts">
      <h1>Scripts</h1>
      <p class="hint">
        The pyscripts module’s Python scripts. Each one runs from its start (inclusive) to its end (exclusive); scripts with the same name are versions of one
        script.
      </p>
      <Fault message={fault} />
      <Notice message={notice} />
      <p class="scripts-toolbar">
        <button
          type="button"
          onClick={() => {
            setNotice(undefined);
            setOpened({ kind: 'new' });
          }}
        >
          New script
        </button>
        <label>
          <input type="checkbox" checked={withDeleted} onChange={(event) => setWithDeleted(event.currentTarget.checked)} /> Show deleted scripts
        </label>
      </p>
      {scripts === undefined ? (
        loading && <p aria-busy="true">Loading…</p>
      ) : scripts.length === 0 ? (
        <p>No script yet.</p>
      ) : (
        <ScriptTable
          scripts={scripts}
          onOpen={(script) => {
            setNotice(undefined);
            setOpened({ kind: 'script', scriptId: script.script_id });
          }}
        />
      )}
      {opened.kind === 'new' && (
        <ScriptCreateForm
          onCancel={() => setOpened({ kind: 'none' })}
          onCreated={(name) => {
            setOpened({ kind: 'none' });
            setNotice(`Script ${name} created.`);
            void reload();
          }}
        />
      )}
      {openedScript !== undefined && (
        <ScriptDetail
          script={openedScript}
          onChanged={() => void reload()}
          onClose={() => setOpened({ kind: 'none' })}
          onDeleted={() => {
            setOpened({ kind: 'none' });
            setNotice(`Script ${openedScript.name} deleted.`);
            void reload();
          }}
        />
      )}
    </section>
  );
}

function ScriptTable({ scripts, onOpen }: { scripts: Script[]; onOpen: (script: Script) => void }) {
  const now = Date.now();
  return (
    <table class="scripts-table">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">State</th>
          <th scope="col">Start</th>
          <th scope="col">End</th>
          <th scope="col">Description</th>
          <th scope="col">Checksum</th>
          <th scope="col">History</th>
        </tr>
      </thead>
      <tbody>
        {scripts.map((script) => (
          <tr key={script.script_id} data-script={script.name} data-deleted={script.deleted === null ? undefined : ''}>
            <th scope="row">
              {script.deleted === null ? (
                <button type="button" class="link" onClick={() => onOpen(script)} aria-label={`Open ${script.name} from ${formatDateTime(script.start)}`}>
                  {script.name}
                </button>
              ) : (
                script.name
              )}
            </th>
            <td>
              {script.deleted === null ? (
                <StateBadge state={validityState(script.start, script.end, now)} />
              ) : (
                <>
                  <StateBadge state="deleted" />{' '}
                  <span class="scripts-deleted">
                    {formatDateTime(script.deleted)}
                    {script.deleted_by === null ? '' : ` by ${script.deleted_by}`}
                  </span>
                </>
              )}
            </td>
            <td>{formatDateTime(script.start)}</td>
            <td>{formatDateTime(script.end)}</td>
            <td>{script.description ?? '—'}</td>
            <td>
              <code title={script.checksum}>{script.checksum.slice(0, CHECKSUM_SHOWN)}</code>
            </td>
            <td>
              <a href={`/console/history/scripts/${encodeURIComponent(script.name)}`} aria-label={`History of ${script.name}`}>
                History
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
