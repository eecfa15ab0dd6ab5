#!/usr/bin/python3
"""Prices points with CloudKitty's own rating modules, reading the rules from CloudKitty's database.

Run with Debian's /usr/bin/python3 (python3-cloudkitty 17), before Tariff upgrades that database:

    cloudkitty_prices.py <cloudkitty.conf>   < request.json   > prices.json

request: {"tenant": "<id>" | null,
          "points": [{"service": "<name>", "qty": "<decimal>", "metadata": {...}, "groupby": {...}}]}
answer:  {"prices": ["<str(Decimal)>", ...], "modules": ["hashmap", ...]}

The enabled modules run by priority, highest first, each over the output of the one before, as
CloudKitty's orchestrator does; each point is priced in a dataframe of its own.
"""
import datetime
import json
import sys

from oslo_config import cfg

START = datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc)
END = datetime.datetime(2026, 6, 1, 1, tzinfo=datetime.timezone.utc)


def main():
    cfg.CONF(['--config-file', sys.argv[1]], project='cloudkitty')
    from cloudkitty import dataframe
    from cloudkitty.rating import hash as ck_hash
    from cloudkitty.rating import pyscripts as ck_pyscripts

    request = json.load(sys.stdin)
    tenant = request.get('tenant')
    modules = [ck_hash.HashMap(tenant_id=tenant), ck_pyscripts.PyScripts(tenant_id=tenant)]
    modules = sorted((module for module in modules if module.enabled), key=lambda module: -(module.priority or 0))
    prices = []
    for point in request['points']:
        frame = dataframe.DataFrame(start=START, end=END)
        frame.add_point(dataframe.DataPoint('unit', point['qty'], 0, point.get('groupby', {}), point.get('metadata', {})), point['service'])
        for module in modules:
            frame = module.process(frame)
        [(_, priced)] = list(frame.iterpoints())
        prices.append(str(priced.price))
    json.dump({'prices': prices, 'modules': [module.module_name for module in modules]}, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
