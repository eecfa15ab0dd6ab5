/**
 * Issue 23 point 8: `tariff policy sample` prints what `oslopolicy-sample-generator --namespace
 * cloudkitty` prints for CloudKitty master (byte for byte, against the real generator run on
 * master's code), lists exactly the enforcer's rules and check strings, and, uncommented, is a
 * policy file giving the defaults' decisions. Its line wrapping is Python's textwrap's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { SECURE_RBAC_DEFAULT_RULES } from '../../src/auth/policy/defaults-secure-rbac.js';
import { PolicyEnforcer, type PolicyCredentials } from '../../src/auth/policy/enforcer.js';
import { describeCheck, parseRule } from '../../src/auth/policy/language.js';
import { formatHelpText, policySample } from '../../src/auth/policy/sample.js';
import { wrapText } from '../../src/auth/policy/textwrap.js';
import { masterAvailable, runMaster } from '../cloudkitty-master/master.js';
import { uncommentedSample } from './sample-file.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'tariff-policy-sample-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const masterHere = masterAvailable();
if (!masterHere)
  console.warn(
    'sample.test.ts: the comparisons with the real generator and textwrap are skipped: ../shared/anchors/cloudkitty-master/run.sh (or Debian python3-cloudkitty) is missing',
  );

/** The real `oslopolicy-sample-generator --namespace cloudkitty` on CloudKitty master's code. */
async function realSample(...options: string[]): Promise<string> {
  const script = `import sys; sys.argv = ["oslopolicy-sample-generator", "--namespace", "cloudkitty", *sys.argv[1:]]
from oslo_policy.generator import generate_sample; generate_sample()`;
  const answer = await runMaster(['python', '-c', script, ...options]);
  if (answer.code !== 0) throw new Error(`the generator failed: ${answer.stderr.slice(-2000)}`);
  return answer.stdout;
}

describe('tariff policy sample', () => {
  it.skipIf(!masterHere)(
    "is the real generator's output for CloudKitty master, with and without --exclude-deprecated",
    async () => {
      expect(policySample()).toBe(await realSample());
      expect(policySample(undefined, { excludeDeprecated: true })).toBe(await realSample('--exclude-deprecated'));
    },
    60_000,
  );

  it("lists exactly the enforcer's rules, with their check strings", () => {
    const listed = [...policySample().matchAll(/^#"([^"]+)": "(.*)"$/gm)].map(([, name, check]) => [name, check] as const);
    expect(listed.map(([name]) => name)).toEqual(SECURE_RBAC_DEFAULT_RULES.map((rule) => rule.name));
    const enforced = new PolicyEnforcer().describeRules();
    expect(Object.keys(enforced).sort()).toEqual(listed.map(([name]) => name).sort());
    for (const [name, check] of listed) expect(describeCheck(parseRule(check).check), name).toBe(enforced[name]);
  });

  it('uncommented, is valid YAML and a policy file giving the same decisions as the defaults', () => {
    const text = uncommentedSample(policySample());
    const document = parseYaml(text) as Record<string, string>;
    expect(Object.keys(document)).toEqual(SECURE_RBAC_DEFAULT_RULES.map((rule) => rule.name));
    const path = join(directory, 'policy.yaml');
    writeFileSync(path, text);
    const fromFile = new PolicyEnforcer({ policyFile: path });
    const defaults = new PolicyEnforcer();
    // oslo.policy warns likewise when a file names admin_or_owner.
    expect(fromFile.warnings).toEqual([
      "policy rule 'admin_or_owner' (overridden by the policy file) was deprecated for removal in 22.0.0; its value may be ignored in the future",
    ]);
    const credentials: fc.Arbitrary<PolicyCredentials> = fc.record({
      roles: fc.subarray(['admin', 'member', 'reader', 'other']),
      project_id: fc.constantFrom('p1', 'p2', null),
      system_scope: fc.constantFrom(null, 'all'),
      domain_id: fc.constantFrom(null, 'default'),
      is_admin_project: fc.boolean(),
    });
    const target = fc.constantFrom({}, { project_id: 'p1' });
    fc.assert(
      fc.property(credentials, target, (who, what) => {
        for (const { name } of SECURE_RBAC_DEFAULT_RULES) expect(fromFile.enforce(name, what, who), name).toBe(defaults.enforce(name, what, who));
      }),
      { numRuns: 300 },
    );
  });

  it('is what the command prints; a wrong subcommand or option is a usage error (exit 2)', async () => {
    const printed = await run(process.execPath, [join(ROOT, 'bin/tariff.js'), 'policy', 'sample'], { cwd: ROOT });
    expect(printed.stdout).toBe(policySample());
    const short = await run(process.execPath, [join(ROOT, 'bin/tariff.js'), 'policy', 'sample', '--exclude-deprecated'], { cwd: ROOT });
    expect(short.stdout).toBe(policySample(undefined, { excludeDeprecated: true }));
    expect(short.stdout).not.toContain('DEPRECATED');
    for (const args of [['policy'], ['policy', 'generate'], ['policy', 'sample', '--format=json']]) {
      const failed = await run(process.execPath, [join(ROOT, 'bin/tariff.js'), ...args], { cwd: ROOT }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code, args.join(' ')).toBe(2);
      expect(failed?.stderr).toContain('usage: tariff policy sample [--exclude-deprecated]');
    }
  }, 60_000);
});

describe("the sample's line wrapping", () => {
  it.skipIf(!masterHere)(
    "breaks lines where Python's textwrap.wrap and oslo.policy's help text do, for generated text",
    async () => {
      const word = fc.oneof(
        fc.stringMatching(/^[a-z]{1,12}$/),
        fc.stringMatching(/^[a-z]{2,6}-[a-z]{1,6}(-[a-z]{1,4})?$/),
        fc.stringMatching(/^[A-Za-z:_%()"'.,-]{1,90}$/),
        fc.constantFrom('--', 'a--b', '"rule:admin_or_owner":"is_admin:True', '%(project_id)s".', 'é-à', '12-34'),
      );
      const separator = fc.constantFrom(' ', ' ', '  ', '\n', '\t', '\n\n', '\n  ');
      const texts = fc.sample(
        fc.array(fc.tuple(word, separator), { maxLength: 40 }).map((parts) => parts.map(([w, s]) => w + s).join('')),
        { numRuns: 300, seed: 23 },
      );
      const script = `import json, sys, textwrap
from oslo_policy.generator import _format_help_text
texts = json.load(sys.stdin)
print(json.dumps([[textwrap.wrap(t, 70, initial_indent='# ', subsequent_indent='# '), textwrap.wrap(t, 9), _format_help_text(t)] for t in texts]))`;
      const answer = await runMaster(['python', '-c', script], { stdin: JSON.stringify(texts) });
      expect(answer.code, answer.stderr).toBe(0);
      const python = JSON.parse(answer.stdout) as [string[], string[], string][];
      texts.forEach((text, index) => {
        expect(wrapText(text, 70, { initial: '# ', subsequent: '# ' }), JSON.stringify(text)).toEqual(python[index][0]);
        expect(wrapText(text, 9), JSON.stringify(text)).toEqual(python[index][1]);
        expect(formatHelpText(text), JSON.stringify(text)).toBe(python[index][2]);
      });
    },
    60_000,
  );
});
