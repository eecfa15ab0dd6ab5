/**
 * Issue 23 point 8, against the real thing: Tariff's enforcer and oslo.policy (Debian's, with
 * CloudKitty master's rules registered, oslo-decide.py) decide the same for generated callers and
 * targets, every rule, both switches each way, with no policy file and with policy files that
 * override a rule, a deprecated name, or every rule (the uncommented sample).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SECURE_RBAC_DEFAULT_RULES } from '../../src/auth/policy/defaults-secure-rbac.js';
import { PolicyEnforcer, type PolicyCredentials } from '../../src/auth/policy/enforcer.js';
import { policySample } from '../../src/auth/policy/sample.js';
import { masterAvailable, runMaster } from '../cloudkitty-master/master.js';
import { ALL_SWITCHES, type PolicySwitches } from './expected-decisions.js';
import { uncommentedSample } from './sample-file.js';

const DECIDE = fileURLToPath(new URL('oslo-decide.py', import.meta.url));
const available = masterAvailable();
if (!available) console.warn('oslo-policy.test.ts skipped: ../shared/anchors/cloudkitty-master/run.sh (or Debian python3-cloudkitty) is missing');

const directory = mkdtempSync(join(tmpdir(), 'tariff-oslo-policy-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Case {
  rule: string;
  target: Record<string, string>;
  credentials: PolicyCredentials;
}

const RULES = SECURE_RBAC_DEFAULT_RULES.map((rule) => rule.name);
const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  rule: fc.constantFrom(...RULES),
  target: fc.oneof(fc.constant({}), fc.record({ project_id: fc.constantFrom('p1', 'p2') })),
  credentials: fc
    .record({
      roles: fc.subarray(['admin', 'member', 'reader', 'MEMBER', 'auditor', 'service']),
      scope: fc.constantFrom('project', 'project', 'domain', 'system'),
      project: fc.constantFrom('p1', 'p2'),
      is_admin_project: fc.boolean(),
      is_admin: fc.option(fc.constant(true), { nil: undefined, freq: 5 }),
    })
    .map(({ roles, scope, project, is_admin_project, is_admin }) => ({
      user_id: 'u1',
      roles,
      project_id: scope === 'project' ? project : null,
      domain_id: scope === 'domain' ? 'default' : null,
      system_scope: scope === 'system' ? 'all' : null,
      is_admin_project,
      ...(is_admin === undefined ? {} : { is_admin }),
    })),
});

/** oslo.policy's decisions for `cases` under `switches` (and a policy file). */
async function osloDecisions(cases: Case[], switches: PolicySwitches, policyFile?: string): Promise<boolean[]> {
  const args = ['python', DECIDE, String(switches.enforceNewDefaults), String(switches.enforceScope), ...(policyFile ? [policyFile] : [])];
  const run = await runMaster(args, { stdin: cases.map((item) => JSON.stringify(item)).join('\n') + '\n' });
  if (run.code !== 0) throw new Error(`oslo-decide.py failed (${run.code}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as boolean[];
}

/** Every differing decision, described, for the failure message (empty when Tariff agrees throughout). */
async function disagreements(switches: PolicySwitches, policyFile?: string, seed = 23): Promise<string[]> {
  const cases = [...RULES.map((rule) => fc.sample(caseArbitrary, { numRuns: 40, seed: seed + rule.length }).map((item) => ({ ...item, rule })))].flat();
  cases.push(...fc.sample(caseArbitrary, { numRuns: 600, seed }));
  const expected = await osloDecisions(cases, switches, policyFile);
  const enforcer = new PolicyEnforcer({ ...switches, policyFile });
  return cases.flatMap((item, index) => {
    const tariff = enforcer.enforce(item.rule, item.target, item.credentials);
    return tariff === expected[index] ? [] : [`${item.rule}: Tariff ${tariff}, oslo.policy ${expected[index]} for ${JSON.stringify(item)}`];
  });
}

function writePolicy(name: string, contents: string): string {
  const path = join(directory, name);
  writeFileSync(path, contents);
  return path;
}

describe.skipIf(!available)('the enforcer against oslo.policy with CloudKitty master rules', () => {
  for (const switches of ALL_SWITCHES) {
    it(`agrees on every rule without a policy file: enforce_new_defaults=${switches.enforceNewDefaults}, enforce_scope=${switches.enforceScope}`, async () => {
      expect(await disagreements(switches)).toEqual([]);
    }, 60_000);
  }

  it('agrees with policy files overriding a rule, a base rule, the deprecated name, or every rule (the uncommented sample)', async () => {
    const files = [
      writePolicy('one.yaml', '"rating:module_config": "role:reader or role:admin"\n"rating:quote": "role:member"\n'),
      writePolicy('base.yaml', 'project_reader_api: "role:auditor"\nadmin_or_owner: "role:service"\n'),
      writePolicy('deprecated-name.yaml', '"rule:admin_or_owner": "role:auditor or project_id:%(project_id)s"\n'),
      writePolicy('alias.yaml', '"rule:admin_or_owner": "rule:project_member_api"\n'),
      writePolicy('sample.yaml', uncommentedSample(policySample())),
    ];
    for (const file of files) {
      for (const switches of [ALL_SWITCHES[0], ALL_SWITCHES[3]])
        expect(await disagreements(switches, file, 7), `${file} ${JSON.stringify(switches)}`).toEqual([]);
    }
  }, 120_000);
});
