"""CloudKitty master's policy decisions, by the real oslo.policy: the oracle of oslo-policy.test.ts.

Run with master first on sys.path (../shared/anchors/cloudkitty-master/run.sh python THIS ...):
  oslo-decide.py ENFORCE_NEW_DEFAULTS ENFORCE_SCOPE [POLICY_FILE] < cases.jsonl
Each stdin line is {"rule", "target", "credentials"}; prints one JSON list of booleans, in order.
A refused scope (InvalidScope) counts as a denial.
"""
import json
import sys
import warnings

warnings.simplefilter('ignore')  # oslo.policy warns about deprecated rules and scopes on stderr

from oslo_config import cfg  # noqa: E402
from oslo_policy import policy  # noqa: E402

from cloudkitty.common import policies  # noqa: E402

conf = cfg.ConfigOpts()
conf([], project='tariff-policy-test')
enforcer = policy.Enforcer(conf, policy_file=sys.argv[3] if len(sys.argv) > 3 else None)
conf.set_override('enforce_new_defaults', sys.argv[1] == 'true', group='oslo_policy')
conf.set_override('enforce_scope', sys.argv[2] == 'true', group='oslo_policy')
enforcer.register_defaults(policies.list_rules())
enforcer.load_rules()
decisions = []
for line in sys.stdin:
    case = json.loads(line)
    try:
        allowed = enforcer.enforce(case['rule'], case['target'], dict(case['credentials']), do_raise=False)
    except policy.InvalidScope:
        allowed = False
    decisions.append(bool(allowed))
print(json.dumps(decisions))
