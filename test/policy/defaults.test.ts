/**
 * Issue 23 point 8: CloudKitty 22+'s secure-RBAC defaults under oslo.policy's two switches. Every
 * rule's decision, for generated callers (roles, project / domain / system scope,
 * is_admin_project, is_admin) and targets, against the table written from CloudKitty master's code
 * (expected-decisions.ts); CloudKitty 17's decisions kept under the old defaults; policy files
 * overriding both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import { CLOUDKITTY_DEFAULT_RULES } from '../../src/auth/policy/defaults.js';
import { SECURE_RBAC_DEFAULT_RULES } from '../../src/auth/policy/defaults-secure-rbac.js';
import { PolicyEnforcer, tokenScope, type PolicyCredentials } from '../../src/auth/policy/enforcer.js';
import { ALL_SWITCHES, EXPECTED_DECISIONS } from './expected-decisions.js';

const directory = mkdtempSync(join(tmpdir(), 'tariff-policy-defaults-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
function policyFile(contents: string): string {
  files += 1;
  const path = join(directory, `policy-${files}.yaml`);
  writeFileSync(path, contents);
  return path;
}

const PROJECTS = ['p1', 'p2'];
/** Callers as keystonemiddleware and oslo.context describe them, of every scope; roles in any case. */
const credentialsArbitrary: fc.Arbitrary<PolicyCredentials> = fc
  .record({
    roles: fc.subarray(['admin', 'member', 'reader', 'Admin', 'READER', 'service', 'billing']),
    scope: fc.constantFrom('project', 'domain', 'system'),
    project: fc.constantFrom(...PROJECTS),
    is_admin_project: fc.option(fc.boolean(), { nil: undefined }),
    is_admin: fc.option(fc.constant(true), { nil: undefined, freq: 4 }),
  })
  .map(({ roles, scope, project, is_admin_project, is_admin }) => ({
    user_id: 'u1',
    roles,
    project_id: scope === 'project' ? project : null,
    domain_id: scope === 'domain' ? 'default' : null,
    system_scope: scope === 'system' ? 'all' : null,
    ...(is_admin_project === undefined ? {} : { is_admin_project }),
    ...(is_admin === undefined ? {} : { is_admin }),
  }));
/** CloudKitty passes `{}` for every rating rule; the report rules pass the tenant. */
const targetArbitrary = fc.oneof(
  fc.constant({}),
  fc.constantFrom(...PROJECTS).map((project_id) => ({ project_id })),
);

describe("CloudKitty 22+'s default rules", () => {
  it('are every rule CloudKitty master registers, and only those', () => {
    expect(SECURE_RBAC_DEFAULT_RULES.map((rule) => rule.name)).toEqual(Object.keys(EXPECTED_DECISIONS));
    for (const switches of ALL_SWITCHES) expect(new PolicyEnforcer(switches).warnings.length, JSON.stringify(switches)).toBeLessThanOrEqual(1);
  });

  for (const switches of ALL_SWITCHES) {
    it(`decide every rule as master does with enforce_new_defaults=${switches.enforceNewDefaults}, enforce_scope=${switches.enforceScope}`, () => {
      const enforcer = new PolicyEnforcer(switches);
      fc.assert(
        fc.property(credentialsArbitrary, targetArbitrary, (credentials, target) => {
          for (const [rule, decide] of Object.entries(EXPECTED_DECISIONS)) {
            expect(enforcer.enforce(rule, target, credentials), `${rule} ${JSON.stringify({ credentials, target })}`).toBe(
              decide(credentials, target, switches),
            );
          }
        }),
        { numRuns: 400 },
      );
    });
  }

  it("decide CloudKitty 17's rules as 17 did under the old defaults without scope checks (today's behaviour)", () => {
    const seventeen = new PolicyEnforcer({ defaults: CLOUDKITTY_DEFAULT_RULES });
    const old = new PolicyEnforcer({ enforceNewDefaults: false, enforceScope: false });
    fc.assert(
      fc.property(credentialsArbitrary, targetArbitrary, (credentials, target) => {
        for (const { name } of CLOUDKITTY_DEFAULT_RULES)
          expect(old.enforce(name, target, credentials), name).toBe(seventeen.enforce(name, target, credentials));
      }),
      { numRuns: 400 },
    );
  });

  it('give the personas the same rating API under both defaults with project tokens: admin everything, member and reader only the quote', () => {
    const persona = (roles: string[]): PolicyCredentials => ({ user_id: 'u', project_id: 'p1', roles, is_admin_project: true });
    const ratingRules = SECURE_RBAC_DEFAULT_RULES.map((rule) => rule.name).filter((name) => /^(rating|v2_rating):/.test(name));
    for (const switches of ALL_SWITCHES) {
      const enforcer = new PolicyEnforcer(switches);
      for (const rule of ratingRules) {
        expect(enforcer.enforce(rule, {}, persona(['admin', 'member', 'reader'])), rule).toBe(true);
        for (const roles of [['member', 'reader'], ['reader']])
          expect(enforcer.enforce(rule, {}, persona(roles)), `${rule} ${roles}`).toBe(rule === 'rating:quote');
      }
    }
  });

  it('refuse a system- or domain-scoped admin every rating rule under enforce_scope, but not context_is_admin (no scope types)', () => {
    const systemAdmin: PolicyCredentials = { user_id: 'u', project_id: null, system_scope: 'all', roles: ['admin'] };
    const domainAdmin: PolicyCredentials = { user_id: 'u', project_id: null, domain_id: 'default', roles: ['admin'] };
    expect([tokenScope(systemAdmin), tokenScope(domainAdmin), tokenScope({ roles: [], project_id: 'p' })]).toEqual(['system', 'domain', 'project']);
    const scoped = new PolicyEnforcer({ enforceScope: true });
    const unscoped = new PolicyEnforcer({ enforceScope: false });
    for (const credentials of [systemAdmin, domainAdmin]) {
      for (const rule of ['rating:module_config', 'rating:quote', 'v2_rating:update_module']) {
        expect(scoped.enforce(rule, {}, credentials), rule).toBe(false);
        expect(unscoped.enforce(rule, {}, credentials), rule).toBe(true);
      }
      expect(scoped.enforce('context_is_admin', {}, credentials)).toBe(true);
    }
  });

  it('tell about a scope mismatch they let pass when scope is not enforced, as oslo.policy logs it', () => {
    const told: unknown[] = [];
    const unscoped = new PolicyEnforcer({ enforceScope: false, onScopeMismatch: (mismatch) => told.push(mismatch) });
    const systemReader: PolicyCredentials = { project_id: null, system_scope: 'all', roles: ['reader'] };
    expect(unscoped.enforce('rating:quote', {}, systemReader)).toBe(true);
    expect(unscoped.enforce('rating:module_config', {}, systemReader)).toBe(false);
    expect(unscoped.enforce('context_is_admin', {}, systemReader)).toBe(false);
    expect(unscoped.enforce('rating:quote', {}, { ...systemReader, system_scope: null, project_id: 'p1' })).toBe(true);
    expect(told).toEqual([
      { rule: 'rating:quote', tokenScope: 'system', scopeTypes: ['project'] },
      { rule: 'rating:module_config', tokenScope: 'system', scopeTypes: ['project'] },
    ]);
    const scoped = new PolicyEnforcer({ enforceScope: true, onScopeMismatch: (mismatch) => told.push(mismatch) });
    expect(scoped.enforce('rating:quote', {}, systemReader)).toBe(false);
    expect(told).toHaveLength(2);
  });
});

describe('a policy file under the secure-RBAC defaults', () => {
  const member: PolicyCredentials = { user_id: 'u', project_id: 'p1', roles: ['member', 'reader'], is_admin_project: true };
  const reader: PolicyCredentials = { user_id: 'u', project_id: 'p1', roles: ['reader'], is_admin_project: true };

  it('overrides a rule under both defaults, and its scope types still apply', () => {
    const path = policyFile('"rating:module_config": "role:reader"\n');
    for (const enforceNewDefaults of [true, false]) {
      const enforcer = new PolicyEnforcer({ policyFile: path, enforceNewDefaults, enforceScope: true });
      expect(enforcer.enforce('rating:module_config', {}, reader)).toBe(true);
      expect(enforcer.enforce('rating:module_config', {}, { ...reader, project_id: null, system_scope: 'all' })).toBe(false);
      expect(new PolicyEnforcer({ policyFile: path, enforceScope: false }).enforce('rating:module_config', {}, { ...reader, system_scope: 'all' })).toBe(true);
    }
  });

  it('naming a rule with a deprecated default stops the OR with the deprecated check (oslo.policy)', () => {
    const owner = { project_id: 'p1' };
    const defaults = new PolicyEnforcer({ enforceNewDefaults: false });
    expect(defaults.enforce('project_reader_api', owner, { ...member, roles: [] })).toBe(true); // admin_or_owner: the owning project
    const pinned = new PolicyEnforcer({
      enforceNewDefaults: false,
      policyFile: policyFile('project_reader_api: "role:reader and project_id:%(project_id)s"\n'),
    });
    expect(pinned.enforce('project_reader_api', owner, { ...member, roles: [] })).toBe(false);
    expect(pinned.enforce('project_reader_api', owner, reader)).toBe(true);
    expect(pinned.warnings).toEqual([
      'enforce_new_defaults is false: policy rules project_member_api, project_member_or_admin, project_reader_or_admin also allow what their deprecated defaults allowed',
    ]);
  });

  it("gives an override of the deprecated name to the new rules unless it aliases them (upstream's name is 'rule:admin_or_owner')", () => {
    const legacy = new PolicyEnforcer({ policyFile: policyFile('"rule:admin_or_owner": "role:auditor"\n') });
    const auditor: PolicyCredentials = { ...reader, roles: ['auditor'] };
    for (const rule of ['project_member_api', 'project_reader_api', 'project_member_or_admin', 'project_reader_or_admin']) {
      expect(legacy.enforce(rule, {}, auditor), rule).toBe(true);
    }
    expect(legacy.warnings).toContain(
      "policy rule 'rule:admin_or_owner' of the policy file is deprecated in favour of 'project_reader_api', which takes its check",
    );
    const alias = new PolicyEnforcer({ policyFile: policyFile('"rule:admin_or_owner": "rule:project_reader_api"\n') });
    expect(alias.enforce('project_reader_api', {}, auditor)).toBe(false);
    // Overriding admin_or_owner itself changes nothing else, as in CloudKitty; it is deprecated for removal.
    const plain = new PolicyEnforcer({ policyFile: policyFile('admin_or_owner: "role:auditor"\n'), enforceNewDefaults: false });
    expect(plain.enforce('project_reader_api', {}, auditor)).toBe(false);
    expect(plain.warnings[0]).toBe(
      "policy rule 'admin_or_owner' (overridden by the policy file) was deprecated for removal in 22.0.0; its value may be ignored in the future",
    );
  });
});

describe('the settings', () => {
  it('default both switches to true, read oslo.config booleans, and name the variable of a bad value', () => {
    expect(loadConfig({})).toMatchObject({ policyEnforceNewDefaults: true, policyEnforceScope: true });
    expect(loadConfig({ TARIFF_POLICY_ENFORCE_NEW_DEFAULTS: 'False', TARIFF_POLICY_ENFORCE_SCOPE: '0' })).toMatchObject({
      policyEnforceNewDefaults: false,
      policyEnforceScope: false,
    });
    expect(loadConfig({ TARIFF_POLICY_ENFORCE_NEW_DEFAULTS: 'yes', TARIFF_POLICY_ENFORCE_SCOPE: 'ON' })).toMatchObject({
      policyEnforceNewDefaults: true,
      policyEnforceScope: true,
    });
    for (const name of ['TARIFF_POLICY_ENFORCE_NEW_DEFAULTS', 'TARIFF_POLICY_ENFORCE_SCOPE']) {
      expect(() => loadConfig({ [name]: 'maybe' }), name).toThrow(ConfigurationError);
      expect(() => loadConfig({ [name]: 'maybe' }), name).toThrow(`${name} must be true or false, got 'maybe'`);
    }
  });
});
