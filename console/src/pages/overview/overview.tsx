/**
 * Overview: the rating modules, each enabled or not and its priority (changed through
 * `PUT /v2/rating/modules/{id}`), how many rules the configuration holds, and the latest changes
 * (who, what and when) from the audit trail (`GET /v2/rating/changes`).
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { changeModule, listModules, type Module } from '../../api/modules.js';
import { listScripts } from '../../api/scripts.js';
import { loadCatalog } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import { useSession } from '../../session.js';
import { useResource } from '../../use-resource.js';
import { formatDateTime } from '../../validity.js';
import { latestChanges, type Change } from './changes.js';

/** Rule counts: services, groups, live mappings, thresholds and live scripts. */
interface Counts {
  services: number;
  groups: number;
  mappings: number;
  thresholds: number;
  scripts: number;
}

/** The rule counts and the latest changes. */
interface Rules {
  counts: Counts;
  changes: Change[];
}

/** How many changes the overview lists. */
const CHANGES_SHOWN = 10;

/** The counts and the latest changes, from one read of the configuration (deleted rules included). */
async function loadRules(): Promise<Rules> {
  const [catalog, scripts] = await Promise.all([loadCatalog({ deleted: true }), listScripts(true)]);
  return {
    counts: {
      services: catalog.services.length,
      groups: catalog.groups.length,
      mappings: catalog.mappings.filter((mapping) => mapping.deleted === null).length,
      thresholds: catalog.thresholds.length,
      scripts: scripts.filter((script) => script.deleted === null).length,
    },
    changes: await latestChanges(catalog, CHANGES_SHOWN),
  };
}

/** The overview page. */
export function Overview() {
  const session = useSession();
  const mayReadRules = session.can('rating:module_config');
  const mayUpdateModules = session.can('v2_rating:update_module');
  const { value: modules, fault: modulesFault, loading: modulesLoading, reload } = useResource<Module[]>(listModules);
  // null: the user may not read the configuration, so there are no rules to count.
  const rules = useResource<Rules | null>(async () => (mayReadRules ? loadRules() : null), [mayReadRules]);
  const [updateFault, setUpdateFault] = useState<string | undefined>();

  const update = async (module: Module, change: Partial<Pick<Module, 'enabled' | 'priority'>>) => {
    setUpdateFault(undefined);
    try {
      await changeModule(module, change);
    } catch (error) {
      setUpdateFault(`${module.module_id}: ${messageOf(error)}`);
    }
    await reload();
  };

  return (
    <section>
      <h1>Overview</h1>
      <Fault message={updateFault ?? modulesFault ?? rules.fault} />
      <h2>Rating modules</h2>
      <p class="hint">Enabled modules rate in descending priority; ties by name.</p>
      {modules === undefined ? (
        modulesLoading && <p aria-busy="true">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Module</th>
              <th scope="col">Description</th>
              <th scope="col">Enabled</th>
              <th scope="col">Priority</th>
            </tr>
          </thead>
          <tbody>
            {modules.map((module) => (
              <tr key={module.module_id}>
                <th scope="row">{module.module_id}</th>
                <td>{module.description}</td>
                <td>
                  <input
                    type="checkbox"
                    checked={module.enabled}
                    disabled={!mayUpdateModules}
                    aria-label={`${module.module_id} enabled`}
                    onChange={(event) => void update(module, { enabled: event.currentTarget.checked })}
                  />
                </td>
                <td>
                  <PriorityInput
                    key={module.priority}
                    module={module}
                    disabled={!mayUpdateModules}
                    onCommit={(priority) => void update(module, { priority })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mayReadRules && <RuleSummary rules={rules.value ?? undefined} loading={rules.loading} />}
    </section>
  );
}

/**
 * A module's priority, kept as typed until committed (Enter or leaving the field), so that a
 * re-render of the page while someone types does not put the stored value back.
 */
function PriorityInput({ module, disabled, onCommit }: { module: Module; disabled: boolean; onCommit: (priority: number) => void }) {
  const [draft, setDraft] = useState(String(module.priority));
  return (
    <input
      type="number"
      min={1}
      step={1}
      value={draft}
      disabled={disabled}
      aria-label={`${module.module_id} priority`}
      onInput={(event) => setDraft(event.currentTarget.value)}
      onChange={(event) => onCommit(Number(event.currentTarget.value))}
    />
  );
}

/** The rule counts and the latest changes (who, what, when). */
function RuleSummary({ rules, loading }: { rules: Rules | undefined; loading: boolean }) {
  if (rules === undefined) return loading ? <p aria-busy="true">Counting rules…</p> : null;
  const { counts, changes } = rules;
  return (
    <>
      <h2>Rules</h2>
      <dl class="counts">
        {(Object.keys(counts) as (keyof Counts)[]).map((kind) => (
          <div key={kind}>
            <dt>{kind}</dt>
            <dd data-count={kind}>{counts[kind]}</dd>
          </div>
        ))}
      </dl>
      <h2>Latest changes</h2>
      {changes.length === 0 ? (
        <p class="hint">No configuration change has been made yet.</p>
      ) : (
        <table class="changes">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Rule</th>
              <th scope="col">Price list</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change, index) => (
              <tr key={index}>
                <td>{formatDateTime(change.at)}</td>
                <td>{change.user}</td>
                <td>{change.what}</td>
                <td>{change.rule}</td>
                <td>{change.revision === null ? '—' : `revision ${change.revision}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
