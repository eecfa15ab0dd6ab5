import { describe, expect, it } from 'vitest';
import { describeCheck, evaluateCheck, parseRule, pythonString, type LegacyListRule, type PolicyValues } from '../../src/auth/policy/language.js';

/** The canonical form of a rule that must parse cleanly. */
function shape(rule: string | LegacyListRule): string {
  const parsed = parseRule(rule);
  expect(parsed.errors).toEqual([]);
  return describeCheck(parsed.check);
}

/** Whether `rule` allows, with named rules given as check strings. */
function allows(rule: string | LegacyListRule, credentials: PolicyValues = {}, target: PolicyValues = {}, rules: Record<string, string> = {}): boolean {
  const table = new Map(Object.entries(rules).map(([name, text]) => [name, parseRule(text).check]));
  return evaluateCheck(parseRule(rule).check, target, credentials, (name) => table.get(name));
}

/** The errors of a rule that must fail to parse as a whole (and so deny everyone). */
function failure(rule: string): string[] {
  const parsed = parseRule(rule);
  expect(parsed.check).toEqual({ kind: 'never' });
  expect(allows(rule, { roles: ['admin'], is_admin: true })).toBe(false);
  return parsed.errors;
}

const admin = { roles: ['admin'], project_id: 'p1' };
const member = { roles: ['member'], project_id: 'p1' };

describe('parsing', () => {
  it('reads the empty rule as always, and @, ! and single checks as themselves', () => {
    expect(shape('')).toBe('@');
    expect(shape('@')).toBe('@');
    expect(shape('!')).toBe('!');
    expect(shape('role:admin')).toBe('role:admin');
    expect(shape('rule:context_is_admin')).toBe('rule:context_is_admin');
    expect(shape('project_id:%(project_id)s')).toBe('project_id:%(project_id)s');
    expect(shape('role:compute:admin')).toEqual('role:compute:admin');
    expect(parseRule('role:compute:admin').check).toEqual({ kind: 'role', match: 'compute:admin' });
  });

  it('binds and tighter than or, not tighter than and, and flattens chains', () => {
    expect(shape('a:1 or b:2 and c:3')).toBe('(a:1 or (b:2 and c:3))');
    expect(shape('a:1 and b:2 or c:3')).toBe('((a:1 and b:2) or c:3)');
    expect(shape('a:1 and b:2 or c:3 and d:4')).toBe('((a:1 and b:2) or (c:3 and d:4))');
    expect(shape('not a:1 and b:2')).toBe('(not a:1 and b:2)');
    expect(shape('a:1 or not b:2 and c:3')).toBe('(a:1 or (not b:2 and c:3))');
    expect(shape('not not a:1')).toBe('not not a:1');
    expect(shape('a:1 or b:2 or c:3')).toBe('(a:1 or b:2 or c:3)');
    expect(shape('a:1 and b:2 and c:3')).toBe('(a:1 and b:2 and c:3)');
  });

  it('honours nested parentheses, glued or spaced', () => {
    expect(shape('not (a:1 and b:2)')).toBe('not (a:1 and b:2)');
    expect(shape('(a:1 or b:2) and c:3')).toBe('((a:1 or b:2) and c:3)');
    expect(shape('((a:1 or b:2) and (c:3 or (d:4 and not e:5)))')).toBe('((a:1 or b:2) and (c:3 or (d:4 and not e:5)))');
    expect(shape('( ( a:1 ) )')).toBe('a:1');
    expect(shape('is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s')).toBe(
      '(is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s)',
    );
  });

  it('reads operators in any case and splits on any blanks', () => {
    expect(shape('role:a AND role:b OR NOT role:c')).toBe('((role:a and role:b) or not role:c)');
    expect(shape('  role:a\n\tor   role:b  ')).toBe('(role:a or role:b)');
  });

  it('evaluates with that precedence', () => {
    expect(allows('@ or ! and !')).toBe(true);
    expect(allows('(@ or !) and !')).toBe(false);
    expect(allows('! and ! or @')).toBe(true);
    expect(allows('! and (! or @)')).toBe(false);
    expect(allows('not ! and !')).toBe(false);
    expect(allows('not (! and !)')).toBe(true);
    expect(allows('not @ or @')).toBe(true);
    expect(allows('not (@ or @)')).toBe(false);
  });

  it('fails a malformed rule as a whole, as !, with errors naming the problem', () => {
    expect(failure('role:admin or')).toEqual(["unexpected end of rule in rule 'role:admin or'"]);
    expect(failure('(role:admin or @')).toEqual(["missing ')' at token 5 in rule '(role:admin or @'"]);
    expect(failure('@ )')).toEqual(["unexpected ')' at token 2 in rule '@ )'"]);
    expect(failure('and @')).toEqual(["unexpected 'and' at token 1 in rule 'and @'"]);
    expect(failure('@ @')).toEqual(["unexpected '@' at token 2 in rule '@ @'"]);
    expect(failure('()')).toEqual(["unexpected ')' at token 2 in rule '()'"]);
    expect(failure("'admin' or @")).toEqual(["quoted string 'admin' is not a check in rule ''admin' or @'"]);
    expect(failure('   ')).toEqual(["empty rule (only blanks) in rule '   '"]);
  });

  it('keeps oslo tokenizing quirks: a parenthesis glued inside a word stays in the check', () => {
    const errors = failure('(role:a or role:b)and role:c');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe("missing ')' at token 5 in rule '(role:a or role:b)and role:c'");
  });

  it('fails a single bad check as ! but keeps the rest of the rule, as oslo does', () => {
    const parsed = parseRule('admin or @');
    expect(parsed.errors).toEqual(["'admin' is not a check: expected kind:match, @ or !"]);
    expect(describeCheck(parsed.check)).toBe('(! or @)');
    expect(allows('admin or @')).toBe(true);
    expect(allows('admin')).toBe(false);
    expect(parseRule(':x').errors).toEqual(["':x' is not a check: expected kind:match, @ or !"]);
    expect(parseRule('http://policy.example.com').errors).toEqual(["'http://policy.example.com': remote http(s) checks are not supported"]);
    expect(parseRule('discount:100%').errors).toEqual(["'discount:100%': only %(name)s and %% may follow '%'"]);
    expect(parseRule('count:%(count)d').errors).toHaveLength(1);
  });
});

describe('role checks', () => {
  it('match role names case-insensitively', () => {
    expect(allows('role:admin', { roles: ['Admin'] })).toBe(true);
    expect(allows('role:ADMIN', { roles: ['reader', 'admin'] })).toBe(true);
    expect(allows('role:admin', { roles: ['member', 'reader'] })).toBe(false);
    expect(allows('role:admin', { roles: [] })).toBe(false);
    expect(allows('role:admin', {})).toBe(false);
    expect(allows('role:admin', { roles: 'admin' })).toBe(false);
  });

  it('substitute the target, and deny when the target lacks the key', () => {
    expect(allows('role:%(wanted)s', { roles: ['reader'] }, { wanted: 'Reader' })).toBe(true);
    expect(allows('role:%(wanted)s', { roles: ['reader'] }, { wanted: 'member' })).toBe(false);
    expect(allows('role:%(wanted)s', { roles: ['reader'] }, {})).toBe(false);
  });
});

describe('generic checks', () => {
  it('compare a credential with the substituted target', () => {
    expect(allows('project_id:%(project_id)s', admin, { project_id: 'p1' })).toBe(true);
    expect(allows('project_id:%(project_id)s', admin, { project_id: 'p2' })).toBe(false);
    expect(allows('project_id:%(project_id)s', admin, { tenant_id: 'p1' })).toBe(false);
    expect(allows('project_id:%(project_id)s', { roles: [] }, { project_id: 'p1' })).toBe(false);
    expect(allows('user_id:%(owner)s and project_id:%(project_id)s', { user_id: 'u', project_id: 'p' }, { owner: 'u', project_id: 'p' })).toBe(true);
  });

  it('compare with a literal right side as text, booleans in Python spelling', () => {
    expect(allows('is_admin:True', { is_admin: true })).toBe(true);
    expect(allows('is_admin:True', { is_admin: false })).toBe(false);
    expect(allows('is_admin:True', { is_admin: 'True' })).toBe(true);
    expect(allows('is_admin:True', {})).toBe(false);
    expect(allows('is_admin:true', { is_admin: true })).toBe(false);
    expect(allows('is_admin_project:False', { is_admin_project: false })).toBe(true);
    expect(allows('system_scope:all', { system_scope: 'all' })).toBe(true);
    expect(allows('system_scope:all', { system_scope: null })).toBe(false);
    expect(allows('level:3', { level: 3 })).toBe(true);
    expect(allows('domain_id:None', { domain_id: null })).toBe(true);
    expect(allows('discount:100%%', { discount: '100%' })).toBe(true);
  });

  it('treat null on both sides as equal, as oslo does (str(None) == str(None))', () => {
    expect(allows('project_id:%(project_id)s', { project_id: null }, { project_id: null })).toBe(true);
  });

  it('follow dotted paths and match any element of a list on the way', () => {
    expect(allows('token.user.id:u1', { token: { user: { id: 'u1' } } })).toBe(true);
    expect(allows('token.user.id:u1', { token: { user: { id: 'u2' } } })).toBe(false);
    expect(allows('token.user.id:u1', { token: {} })).toBe(false);
    expect(allows('token.user.id:u1', { token: 'u1' })).toBe(false);
    expect(allows('groups.name:ops', { groups: [{ name: 'dev' }, { name: 'ops' }] })).toBe(true);
    expect(allows('groups.name:qa', { groups: [{ name: 'dev' }, { name: 'ops' }] })).toBe(false);
    expect(allows('roles:admin', { roles: ['member', 'admin'] })).toBe(true);
    expect(allows('roles:admin', { roles: ['Admin'] })).toBe(false);
  });

  it('read a literal left side (quoted string, True/False/None, number) and compare it with the target', () => {
    expect(allows("'member':%(role)s", {}, { role: 'member' })).toBe(true);
    expect(allows('"member":%(role)s', {}, { role: 'admin' })).toBe(false);
    expect(allows('True:%(enabled)s', {}, { enabled: true })).toBe(true);
    expect(allows('True:%(enabled)s', {}, { enabled: false })).toBe(false);
    expect(allows('None:%(parent)s', {}, { parent: null })).toBe(true);
    expect(allows('5:%(count)s', {}, { count: 5 })).toBe(true);
    expect(allows('1.50:%(price)s', {}, { price: 1.5 })).toBe(true);
    expect(allows('2.0:%(price)s', {}, { price: 2 })).toBe(false);
    expect(allows('True:%(enabled)s', { True: 'x' }, {})).toBe(false);
  });
});

describe('rule references', () => {
  const rules = { admin_only: 'role:admin', owner: 'project_id:%(project_id)s', either: 'rule:admin_only or rule:owner' };

  it('evaluate the named rule, and deny an unknown one', () => {
    expect(allows('rule:admin_only', admin, {}, rules)).toBe(true);
    expect(allows('rule:admin_only', member, {}, rules)).toBe(false);
    expect(allows('rule:either', member, { project_id: 'p1' }, rules)).toBe(true);
    expect(allows('rule:either', member, { project_id: 'p2' }, rules)).toBe(false);
    expect(allows('rule:missing', admin, {}, rules)).toBe(false);
    expect(allows('not rule:missing', admin, {}, rules)).toBe(true);
    expect(allows('rule:admin_only and rule:admin_only', admin, {}, rules)).toBe(true);
  });

  it('deny a cyclic reference instead of recursing forever', () => {
    const cyclic = { a: 'rule:b', b: 'rule:a', self: 'rule:self or role:admin' };
    expect(allows('rule:a', admin, {}, cyclic)).toBe(false);
    expect(allows('rule:self', admin, {}, cyclic)).toBe(true);
    expect(allows('rule:self', member, {}, cyclic)).toBe(false);
  });
});

describe('legacy list-of-lists rules', () => {
  const adminOrOwner = [['role:admin'], ['project_id:%(project_id)s']];

  it('join the outer list by or and inner lists by and', () => {
    expect(shape([])).toBe('@');
    expect(shape(adminOrOwner)).toBe('(role:admin or project_id:%(project_id)s)');
    expect(shape([['role:admin', 'project_id:%(project_id)s']])).toBe('(role:admin and project_id:%(project_id)s)');
    expect(shape(['role:admin'])).toBe('role:admin');
    expect(shape([[], []])).toBe('!');
    expect(allows(adminOrOwner, admin, { project_id: 'p9' })).toBe(true);
    expect(allows(adminOrOwner, member, { project_id: 'p1' })).toBe(true);
    expect(allows(adminOrOwner, member, { project_id: 'p9' })).toBe(false);
  });

  it('take each element as one check, without operators', () => {
    expect(parseRule([['role:admin or @']]).check).toEqual({ kind: 'role', match: 'admin or @' });
    expect(allows([['role:admin or @']], admin)).toBe(false);
    expect(parseRule([['nocolon']]).errors).toEqual(["'nocolon' is not a check: expected kind:match, @ or !"]);
  });
});

describe('pythonString', () => {
  it("spells values as Python's str() does", () => {
    expect([true, false, null, undefined, 3, 1.5, 'text', ['a', 1]].map((value) => pythonString(value))).toEqual([
      'True',
      'False',
      'None',
      'None',
      '3',
      '1.5',
      'text',
      "['a', 1]",
    ]);
    expect(pythonString(2, true)).toBe('2.0');
  });
});
