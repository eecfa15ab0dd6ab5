/**
 * Groups: the hashmap module's groups (docs/api.md §4), each with how many mappings and thresholds
 * it holds; a group is created by name, its rules shown, and it is deleted with its rules detached
 * or deleted with it.
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { loadCatalog, type Catalog, type Group } from '../../catalog.js';
import { Fault } from '../../components/fault.js';
import { Notice } from '../../components/notice.js';
import { createGroup } from '../../api/hashmap.js';
import { GroupDeletion } from './delete.js';
import { GroupRulesTable } from './rules.js';
import { useResource } from '../../use-resource.js';
import './groups.css';

/** How many live mappings and thresholds a group holds. */
interface RuleCounts {
  mappings: number;
  thresholds: number;
}

/** The rule counts of every group, by group id. */
function countRulesByGroup(catalog: Catalog): Map<string, RuleCounts> {
  const counts = new Map(catalog.groups.map((group) => [group.group_id, { mappings: 0, thresholds: 0 }]));
  for (const mapping of catalog.mappings) {
    const count = mapping.group_id === null ? undefined : counts.get(mapping.group_id);
    if (count !== undefined) count.mappings++;
  }
  for (const threshold of catalog.thresholds) {
    const count = threshold.group_id === null ? undefined : counts.get(threshold.group_id);
    if (count !== undefined) count.thresholds++;
  }
  return counts;
}

/** What the page shows under the list: nothing, a group's rules, or a group's deletion. */
type Opened = { kind: 'none' } | { kind: 'rules' | 'delete'; groupId: string };

/** The groups page. */
export function Groups() {
  const { value: catalog, fault, loading, reload } = useResource<Catalog>(loadCatalog);
  const [notice, setNotice] = useState<string | undefined>();
  const [opened, setOpened] = useState<Opened>({ kind: 'none' });

  const counts = catalog === undefined ? new Map<string, RuleCounts>() : countRulesByGroup(catalog);
  const openedGroup = opened.kind === 'none' ? undefined : catalog?.groupById.get(opened.groupId);
  const open = (next: Opened) => {
    setNotice(undefined);
    setOpened(next);
  };
  return (
    <section class="groups">
      <h1>Groups</h1>
      <p class="hint">
        Each group prices a resource on its own: within a group the most expensive flat mapping applies, rates multiply and the highest threshold reached wins;
        the resource’s price is the sum of its groups’ amounts. Rules without a group form one group of their own.
      </p>
      <Fault message={fault} />
      <Notice message={notice} />
      <CreateGroupForm
        onCreated={(group) => {
          setNotice(`Group ${group.name} created.`);
          void reload();
        }}
      />
      {catalog === undefined ? (
        loading && <p aria-busy="true">Loading…</p>
      ) : catalog.groups.length === 0 ? (
        <p>No group yet.</p>
      ) : (
        <table class="groups-table">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Mappings</th>
              <th scope="col">Thresholds</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {[...catalog.groups]
              .sort((a, b) => a.name.localeCompare(b.name))
              .map((group) => (
                <tr key={group.group_id} data-group={group.name}>
                  <th scope="row">{group.name}</th>
                  <td data-count="mappings">{counts.get(group.group_id)?.mappings ?? 0}</td>
                  <td data-count="thresholds">{counts.get(group.group_id)?.thresholds ?? 0}</td>
                  <td>
                    <div class="group-actions">
                      <button
                        type="button"
                        aria-pressed={opened.kind === 'rules' && opened.groupId === group.group_id}
                        onClick={() => open({ kind: 'rules', groupId: group.group_id })}
                      >
                        Show the rules of {group.name}
                      </button>
                      <button type="button" onClick={() => open({ kind: 'delete', groupId: group.group_id })}>
                        Delete {group.name}…
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
      {catalog !== undefined && openedGroup !== undefined && opened.kind === 'rules' && <GroupRulesTable group={openedGroup} catalog={catalog} />}
      {openedGroup !== undefined && opened.kind === 'delete' && (
        <GroupDeletion
          group={openedGroup}
          mappings={counts.get(openedGroup.group_id)?.mappings ?? 0}
          thresholds={counts.get(openedGroup.group_id)?.thresholds ?? 0}
          onCancel={() => setOpened({ kind: 'none' })}
          onDeleted={() => {
            setOpened({ kind: 'none' });
            setNotice(`Group ${openedGroup.name} deleted.`);
            void reload();
          }}
        />
      )}
    </section>
  );
}

/** The form that creates a group by name; the server's fault (409 for a name in use) shown. */
function CreateGroupForm({ onCreated }: { onCreated: (group: Group) => void }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [fault, setFault] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFault(undefined);
    try {
      const group = await createGroup(name.trim());
      setName('');
      onCreated(group);
    } catch (error) {
      setFault(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="group-create" aria-labelledby="group-create-title" onSubmit={(event) => void submit(event)}>
      <h2 id="group-create-title">New group</h2>
      <Fault message={fault} />
      <label for="group-name">Name</label>{' '}
      <input
        id="group-name"
        required
        maxLength={255}
        value={name}
        aria-invalid={fault === undefined ? undefined : 'true'}
        onInput={(event) => setName(event.currentTarget.value)}
      />{' '}
      <button type="submit" disabled={busy}>
        Create group
      </button>
    </form>
  );
}
