/**
 * `tariff policy …`, the operator's view of the default policy rules. Today one subcommand:
 * `tariff policy sample [--exclude-deprecated]` prints the sample policy file (sample.ts) on
 * standard output, as `oslopolicy-sample-generator --namespace cloudkitty` does for CloudKitty
 * master.
 */

import { policySample } from './sample.js';

/** The usage lines of `tariff policy`, for the CLI's help. */
export const POLICY_USAGE = `  policy sample [--exclude-deprecated]
                        print the default policy rules (CloudKitty 2025.1+'s secure-RBAC defaults,
                        deprecated ones noted) as a sample policy.yaml, every rule commented out,
                        as oslopolicy-sample-generator --namespace cloudkitty prints them`;

/** Where the command writes. */
export interface PolicyCommandStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Runs `tariff policy ARGS`; returns the exit code: 0 done, 2 for a usage error (told on stderr).
 * The sample does not depend on any setting: like oslo.policy's generator, it shows the new
 * defaults and, beside them, the deprecated rules `TARIFF_POLICY_ENFORCE_NEW_DEFAULTS=false` honours.
 */
export function runPolicyCommand(args: readonly string[], streams: PolicyCommandStreams): number {
  const [subcommand, ...options] = args;
  const unknown = options.filter((option) => option !== '--exclude-deprecated');
  if (subcommand !== 'sample' || unknown.length > 0) {
    const problem = subcommand !== 'sample' ? `unknown policy command '${subcommand ?? ''}'` : `unknown option '${unknown[0]}'`;
    streams.stderr.write(`tariff: ${problem}\nusage: tariff policy sample [--exclude-deprecated]\n`);
    return 2;
  }
  streams.stdout.write(policySample(undefined, { excludeDeprecated: options.includes('--exclude-deprecated') }));
  return 0;
}
