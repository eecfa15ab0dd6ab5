/**
 * Issue 26: the Prometheus alert rules Tariff ships (deploy/prometheus/tariff-alerts.yml) pass
 * Debian's `promtool check rules`, and their unit tests (tariff-alerts.test.yml) pass
 * `promtool test rules`: every alert fires on the instance in trouble and not on its healthy peer.
 * The tests can fail: a copy of the rules with one threshold changed fails them. Every alert has
 * its test, and every Tariff series a rule reads is one Tariff serves. Skipped, with a warning,
 * without promtool.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { TariffMetrics } from '../../src/kernel/metrics.js';

const PROMTOOL = '/usr/bin/promtool';
const AVAILABLE = existsSync(PROMTOOL);
if (!AVAILABLE) console.warn(`test/operations/alert-rules.test.ts skipped: ${PROMTOOL} is missing (install Debian's prometheus)`);

const FOLDER = join(import.meta.dirname, '../../deploy/prometheus');
const RULES = join(FOLDER, 'tariff-alerts.yml');
const RULE_TESTS = join(FOLDER, 'tariff-alerts.test.yml');

interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string }[] }[];
}

interface RuleTestFile {
  tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
}

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, args, { cwd: FOLDER, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe.skipIf(!AVAILABLE)('the alert rules', () => {
  it('pass promtool check rules and their unit tests in promtool test rules', () => {
    const checked = promtool('check', 'rules', RULES);
    expect(checked.output).toContain('SUCCESS: 8 rules found');
    expect(checked.status, checked.output).toBe(0);
    const tested = promtool('test', 'rules', RULE_TESTS);
    expect(tested.status, tested.output).toBe(0);
    expect(tested.output).toContain('SUCCESS');
  });

  it('fail their unit tests when a threshold changes', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-alert-rules-'));
    try {
      const rules = readFileSync(RULES, 'utf8');
      const changed = rules.replace('increase(tariff_sandbox_restarts_total[15m])) > 3', 'increase(tariff_sandbox_restarts_total[15m])) > 30');
      expect(changed).not.toBe(rules);
      writeFileSync(join(directory, 'tariff-alerts.yml'), changed);
      copyFileSync(RULE_TESTS, join(directory, 'tariff-alerts.test.yml'));
      const run = spawnSync(PROMTOOL, ['test', 'rules', 'tariff-alerts.test.yml'], { cwd: directory, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).not.toBe(0);
      expect(`${run.stdout}${run.stderr}`).toContain('alertname: TariffSandboxRestarts');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('each have a test where they fire, and read only series Tariff serves', async () => {
    const rules = (yaml.load(readFileSync(RULES, 'utf8')) as RuleFile).groups.flatMap((group) => group.rules);
    const tests = (yaml.load(readFileSync(RULE_TESTS, 'utf8')) as RuleTestFile).tests.flatMap((test) => test.alert_rule_test);
    for (const rule of rules) {
      expect(
        tests.some((test) => test.alertname === rule.alert && test.exp_alerts.length > 0),
        rule.alert,
      ).toBe(true);
    }
    const served = await new TariffMetrics().text();
    for (const rule of rules) {
      for (const [name] of rule.expr.matchAll(/\btariff_[a-z_]+/g))
        expect(served, `${rule.alert} reads ${name}`).toMatch(new RegExp(`^# TYPE ${name.replace(/_count$/, '')} `, 'm'));
    }
  });
});
