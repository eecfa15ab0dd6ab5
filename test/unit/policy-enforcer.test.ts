import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/config.js';
import { CLOUDKITTY_DEFAULT_RULES } from '../../src/auth/policy/defaults.js';
import { PolicyEnforcer, type PolicyCredentials } from '../../src/auth/policy/enforcer.js';

const directory = mkdtempSync(join(tmpdir(), 'tariff-policy-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let fileCount = 0;
/** Writes a policy file into the temporary directory and returns its path. */
function policyFile(contents: string, extension = 'yaml'): string {
  fileCount += 1;
  const path = join(directory, `policy-${fileCount}.${extension}`);
  writeFileSync(path, contents);
  return path;
}

/** The ConfigurationError message loading `path` gives; fails the test when loading succeeds. */
function loadFailure(path: string): string {
  try {
    new PolicyEnforcer({ policyFile: path });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error(`loading ${path} did not fail`);
}

const admin: PolicyCredentials = { user_id: 'u-admin', project_id: 'p-admin', roles: ['admin', 'member', 'reader'], is_admin_project: true };
const member: PolicyCredentials = { user_id: 'u-member', project_id: 'p1', roles: ['member', 'reader'], is_admin_project: true };
const reader: PolicyCredentials = { user_id: 'u-reader', project_id: 'p1', roles: ['reader'], is_admin_project: true };
const roleless: PolicyCredentials = { user_id: 'u-none', project_id: 'p1', roles: [] };

const ADMIN_RULES = [
  'context_is_admin',
  'rating:list_modules',
  'rating:get_module',
  'rating:update_module',
  'rating:module_config',
  'v2_rating:list_modules',
  'v2_rating:get_module',
  'v2_rating:update_module',
];

describe("CloudKitty's default rules", () => {
  const enforcer = new PolicyEnforcer();

  it("keep CloudKitty 17's check string for each of 17's rating rules (plus v2_rating:update_module of 21), under both defaults", () => {
    // CloudKitty 22 kept every rating rule's check and added scope types and base rules
    // (test/policy/ checks the rest); TARIFF_POLICY_ENFORCE_NEW_DEFAULTS=false ORs only the rules that have a deprecated one.
    const seventeen = {
      context_is_admin: 'role:admin',
      admin_or_owner: '(is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s)',
      default: '@',
      'rating:list_modules': 'role:admin',
      'rating:get_module': 'role:admin',
      'rating:update_module': 'role:admin',
      'rating:quote': '@',
      'rating:module_config': 'role:admin',
      'v2_rating:list_modules': 'role:admin',
      'v2_rating:get_module': 'role:admin',
      'v2_rating:update_module': 'role:admin',
    };
    for (const enforceNewDefaults of [true, false]) {
      expect(new PolicyEnforcer({ enforceNewDefaults }).describeRules()).toMatchObject(seventeen);
    }
    expect(Object.keys(seventeen).sort()).toEqual(CLOUDKITTY_DEFAULT_RULES.map((rule) => rule.name).sort());
    expect(CLOUDKITTY_DEFAULT_RULES.every((rule) => rule.description.length > 0)).toBe(true);
    expect(enforcer.warnings).toEqual([]);
  });

  it('let an admin (any case of the role name) do every admin action, and nobody else', () => {
    for (const rule of ADMIN_RULES) {
      expect(enforcer.enforce(rule, {}, admin), rule).toBe(true);
      expect(enforcer.enforce(rule, {}, { ...member, roles: ['ADMIN'] }), rule).toBe(true);
      expect(enforcer.enforce(rule, {}, member), rule).toBe(false);
      expect(enforcer.enforce(rule, {}, reader), rule).toBe(false);
      expect(enforcer.enforce(rule, {}, roleless), rule).toBe(false);
      expect(enforcer.enforce(rule, {}, { ...member, is_admin: true }), rule).toBe(false);
    }
  });

  it('let anyone with a token quote (rating:quote is unprotected), and default allows', () => {
    for (const credentials of [admin, member, reader, roleless]) {
      expect(enforcer.enforce('rating:quote', {}, credentials)).toBe(true);
      expect(enforcer.enforce('default', {}, credentials)).toBe(true);
    }
  });

  it('grant admin_or_owner to the owning project, an admin of the admin project, or is_admin', () => {
    expect(enforcer.enforce('admin_or_owner', { project_id: 'p1' }, member)).toBe(true);
    expect(enforcer.enforce('admin_or_owner', { project_id: 'p2' }, member)).toBe(false);
    expect(enforcer.enforce('admin_or_owner', { project_id: 'p2' }, admin)).toBe(true);
    expect(enforcer.enforce('admin_or_owner', { project_id: 'p2' }, { ...admin, is_admin_project: false })).toBe(false);
    expect(enforcer.enforce('admin_or_owner', { project_id: 'p2' }, { ...reader, is_admin: true })).toBe(true);
    expect(enforcer.enforce('admin_or_owner', {}, member)).toBe(false);
  });

  it('throw for a rule name nobody defined', () => {
    expect(() => enforcer.enforce('rating:no_such_rule', {}, admin)).toThrow("no policy rule named 'rating:no_such_rule'");
  });

  it('refuse a default rule that does not parse', () => {
    expect(() => new PolicyEnforcer({ defaults: [{ name: 'broken', check: 'role:admin or', description: 'x' }] })).toThrow(
      "default policy rule 'broken' does not parse: unexpected end of rule in rule 'role:admin or'",
    );
  });
});

describe('policy files', () => {
  it('override defaults by name and add new rules (YAML)', () => {
    const enforcer = new PolicyEnforcer({
      policyFile: policyFile(
        [
          '# operators may quote only as members',
          '"rating:quote": "role:member"',
          'rating:module_config: rule:billing_operator or rule:context_is_admin',
          'billing_operator: role:billing and project_id:%(project_id)s',
          'system_admin: system:all',
        ].join('\n'),
      ),
    });
    expect(enforcer.enforce('rating:quote', {}, member)).toBe(true);
    expect(enforcer.enforce('rating:quote', {}, reader)).toBe(false);
    const billing = { ...reader, roles: ['billing'] };
    expect(enforcer.enforce('rating:module_config', { project_id: 'p1' }, billing)).toBe(true);
    expect(enforcer.enforce('rating:module_config', { project_id: 'p2' }, billing)).toBe(false);
    expect(enforcer.enforce('rating:module_config', {}, billing)).toBe(false);
    expect(enforcer.enforce('rating:module_config', {}, admin)).toBe(true);
    expect(enforcer.enforce('rating:list_modules', {}, billing)).toBe(false);
    expect(enforcer.enforce('system_admin', {}, { ...reader, system_scope: 'all' })).toBe(true);
    expect(enforcer.enforce('system_admin', {}, reader)).toBe(false);
  });

  it('read JSON, including the legacy list syntax and an empty rule', () => {
    const enforcer = new PolicyEnforcer({
      policyFile: policyFile(
        JSON.stringify({ 'rating:get_module': [['role:admin'], ['role:auditor', 'is_admin_project:True']], 'rating:list_modules': '', 'rating:quote': [] }),
        'json',
      ),
    });
    expect(enforcer.enforce('rating:get_module', {}, { ...reader, roles: ['auditor'] })).toBe(true);
    expect(enforcer.enforce('rating:get_module', {}, { ...reader, roles: ['auditor'], is_admin_project: false })).toBe(false);
    expect(enforcer.enforce('rating:get_module', {}, reader)).toBe(false);
    expect(enforcer.enforce('rating:list_modules', {}, roleless)).toBe(true);
    expect(enforcer.enforce('rating:quote', {}, roleless)).toBe(true);
    expect(enforcer.enforce('rating:update_module', {}, member)).toBe(false);
  });

  it('read a YAML null as the empty rule and an empty file as no rules, as oslo.policy does', () => {
    const nullRule = new PolicyEnforcer({ policyFile: policyFile('"rating:list_modules":\n') });
    expect(nullRule.enforce('rating:list_modules', {}, roleless)).toBe(true);
    const empty = new PolicyEnforcer({ policyFile: policyFile('# nothing overridden\n') });
    expect(empty.describeRules()).toEqual(new PolicyEnforcer().describeRules());
  });

  it('warn about, and deny, references to undefined rules', () => {
    const enforcer = new PolicyEnforcer({ policyFile: policyFile('"rating:quote": "rule:typo or role:admin"\n') });
    expect(enforcer.warnings).toEqual(["policy rule 'rating:quote' references undefined rule 'typo', which denies"]);
    expect(enforcer.enforce('rating:quote', {}, member)).toBe(false);
    expect(enforcer.enforce('rating:quote', {}, admin)).toBe(true);
  });
});

describe('bad policy files', () => {
  it('name a file that cannot be read', () => {
    const path = join(directory, 'absent.yaml');
    expect(loadFailure(path)).toMatch(new RegExp(`^policy file ${path} cannot be read: ENOENT`));
  });

  it('report JSON syntax errors for a JSON file and YAML ones for a YAML file', () => {
    const json = policyFile('{"rating:quote": "role:admin",, }', 'json');
    expect(loadFailure(json)).toMatch(new RegExp(`^policy file ${json} does not parse: invalid JSON: `));
    const braced = policyFile('{"rating:quote": "role:admin" "x": "y"}', 'policy');
    expect(loadFailure(braced)).toMatch(/does not parse: invalid JSON: /);
    const yaml = policyFile('rating:quote: [unclosed\n');
    expect(loadFailure(yaml)).toMatch(new RegExp(`^policy file ${yaml} does not parse: invalid YAML: `));
    expect(loadFailure(policyFile('a: role:x\na: role:y\n'))).toMatch(/invalid YAML: .*unique/);
  });

  it('refuse a document that is not a mapping of rules', () => {
    expect(loadFailure(policyFile('- role:admin\n'))).toMatch(/must map rule names to rules, got a list$/);
    expect(loadFailure(policyFile('"just text"', 'json'))).toMatch(/must map rule names to rules, got string$/);
    const path = policyFile('rating:quote: 5\n');
    expect(loadFailure(path)).toBe(`policy file ${path}: rule 'rating:quote' must be a string or a list of lists of strings, got 5`);
    expect(loadFailure(policyFile('{"x": [["role:a", 1]]}', 'json'))).toMatch(/rule 'x' must be a string or a list of lists of strings/);
  });

  it('name the file and the rule that does not parse', () => {
    const path = policyFile('"rating:quote": "@"\n"rating:module_config": "role:admin and (role:member"\n');
    expect(loadFailure(path)).toBe(
      `policy file ${path}: rule 'rating:module_config' does not parse: missing ')' at token 5 in rule 'role:admin and (role:member'`,
    );
    const badCheck = policyFile('{"rating:quote": "admin or @"}', 'json');
    expect(loadFailure(badCheck)).toBe(`policy file ${badCheck}: rule 'rating:quote' does not parse: 'admin' is not a check: expected kind:match, @ or !`);
    expect(loadFailure(policyFile('rating:quote: "[[bad"\n'))).toMatch(/rule 'rating:quote' does not parse/);
  });

  it('refuse rules that reference each other in a cycle', () => {
    const path = policyFile('a: rule:b or role:admin\nb: not rule:c\nc: rule:a\n"rating:quote": rule:a\n');
    expect(loadFailure(path)).toBe(`${path}: policy rules reference each other in a cycle: a -> b -> c -> a`);
    expect(loadFailure(policyFile('"rating:quote": "rule:rating:quote"\n'))).toMatch(/cycle: rating:quote -> rating:quote$/);
  });
});
