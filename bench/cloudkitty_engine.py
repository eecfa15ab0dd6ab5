#!/usr/bin/python3
"""Prices points with CloudKitty's own hashmap engine (cloudkitty.rating.hash.HashMap).

Driven by bench/engine.js; run it with Debian's /usr/bin/python3 (python3-cloudkitty 17).

Input (JSON, from the file given as the first argument, or stdin when it is absent or "-"):

    {"mode": "bench" | "probe",
     "runs": 3,                       # bench mode: timed runs of the pricing loop
     "cases": [{
         "tenant": "tenant-a" | null,  # HashMap(tenant_id=...)
         "services": [{"name": "compute", "fields": ["flavor", ...]}, ...],
         "mappings": [{"id", "service", "field" | null, "value" | null,
                       "type": "flat" | "rate", "cost": "<decimal>",
                       "group": "<name>" | null, "tenant": "<id>" | null}, ...],
         "thresholds": [{"id", "service", "field" | null, "level": "<decimal>",
                         "type", "cost", "group", "tenant"}, ...],
         "points": [{"service", "qty": "<decimal>", "metadata": {...}, "groupby": {...}}
                    | {"service", "qty", "raw": "<JSON text of {metadata, groupby}>"}, ...]
     }, ...]}

The database layer is replaced, not the engine: `hash_db_api.get_instance` is monkeypatched to
return an in-memory stand-in for CloudKitty's SQLAlchemy HashMap API (list_services,
get_service, list_fields, get_field, list_mappings, get_mapping, list_thresholds,
get_threshold), answering as the SQL API does (rows in insertion order, tenant filter
`tenant_id == tenant` with None meaning IS NULL, costs as NUMERIC(40,28) and levels as
NUMERIC(20,8) Decimals). `HashMap(tenant_id)` then runs its real `_load_rates`, and the points
are priced by its real `process(DataFrame)`, which is CloudKitty's per-point loop
(process_services, process_fields, add_rating_informations).

Output (JSON on stdout): {"cases": [{"prices": ["<str(Decimal)>" | {"error": "..."}, ...]}],
"timings_s": [...], "best_s": ..., "points": n, "load_s": ...}.
In bench mode the single case is priced as one DataFrame (one exception fails the run); in probe
mode every point is priced alone, and an exception is reported for that point.
"""
import datetime
import decimal
import json
import platform
import sys
import time

from cloudkitty import dataframe
from cloudkitty.rating import hash as ck_hash
from cloudkitty.rating.hash.db import api as hash_db_api

COST_QUANTUM = decimal.Decimal(1).scaleb(-28)   # NUMERIC(40, 28)
LEVEL_QUANTUM = decimal.Decimal(1).scaleb(-8)   # NUMERIC(20, 8)
WIDE = decimal.Context(prec=60)


def numeric(text, quantum):
    """What PostgreSQL/MySQL return for a NUMERIC column: a Decimal with the column's scale."""
    return decimal.Decimal(text).quantize(quantum, context=WIDE)


class Row(object):
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class FakeHashMapAPI(object):
    """The parts of cloudkitty.rating.hash.db.sqlalchemy.api.HashMap that _load_rates uses."""

    def __init__(self, case):
        self.services = {}
        self.fields = {}
        self.service_fields = {}
        self.groups = {}
        for s_index, service in enumerate(case['services']):
            s_uuid = 'service-%d' % s_index
            self.services[s_uuid] = Row(service_id=s_uuid, name=service['name'])
            self.service_fields[s_uuid] = []
            for f_index, field in enumerate(service['fields']):
                f_uuid = 'field-%d-%d' % (s_index, f_index)
                self.fields[f_uuid] = Row(field_id=f_uuid, name=field)
                self.service_fields[s_uuid].append(f_uuid)
        self.service_by_name = {s.name: u for u, s in self.services.items()}
        self.field_by_name = {}
        for s_uuid, f_uuids in self.service_fields.items():
            for f_uuid in f_uuids:
                key = (self.services[s_uuid].name, self.fields[f_uuid].name)
                self.field_by_name[key] = f_uuid
        self.mappings = self._rows(case['mappings'], 'value', None)
        self.thresholds = self._rows(case['thresholds'], 'level', LEVEL_QUANTUM)

    def _group(self, name):
        if name is None:
            return None
        if name not in self.groups:
            self.groups[name] = Row(group_id='group-%d' % len(self.groups), name=name)
        return self.groups[name]

    def _rows(self, rules, key, quantum):
        rows = {}
        for rule in rules:
            group = self._group(rule.get('group'))
            if rule.get('field') is None:
                parent = ('service', self.service_by_name[rule['service']])
            else:
                parent = ('field', self.field_by_name[(rule['service'], rule['field'])])
            value = rule.get(key)
            if quantum is not None:
                value = numeric(value, quantum)
            rows[rule['id']] = Row(
                uuid=rule['id'],
                parent=parent,
                tenant_id=rule.get('tenant'),
                group_id=group.group_id if group else None,
                group=group,
                map_type=rule['type'],
                cost=numeric(rule['cost'], COST_QUANTUM),
                **{key: value})
        return rows

    # The SQL API: rows in insertion (primary key) order.
    def list_services(self):
        return list(self.services)

    def get_service(self, name=None, uuid=None):
        return self.services[uuid]

    def list_fields(self, service_uuid):
        return list(self.service_fields[service_uuid])

    def get_field(self, uuid=None, service_uuid=None, name=None):
        return self.fields[uuid]

    @staticmethod
    def _list(rows, service_uuid=None, field_uuid=None, **kwargs):
        if service_uuid:
            parent = ('service', service_uuid)
        elif field_uuid:
            parent = ('field', field_uuid)
        else:
            raise ValueError('You must specify either service_uuid, field_uuid or group_uuid.')
        out = [r.uuid for r in rows.values() if r.parent == parent]
        if 'tenant_uuid' in kwargs:
            tenant = kwargs['tenant_uuid']
            out = [u for u in out if rows[u].tenant_id == tenant]
        return out

    def list_mappings(self, service_uuid=None, field_uuid=None, group_uuid=None,
                      no_group=False, **kwargs):
        return self._list(self.mappings, service_uuid, field_uuid, **kwargs)

    def get_mapping(self, uuid):
        return self.mappings[uuid]

    def list_thresholds(self, service_uuid=None, field_uuid=None, group_uuid=None,
                        no_group=False, **kwargs):
        return self._list(self.thresholds, service_uuid, field_uuid, **kwargs)

    def get_threshold(self, uuid):
        return self.thresholds[uuid]


def load_engine(case):
    fake = FakeHashMapAPI(case)
    hash_db_api.get_instance = lambda: fake
    return ck_hash.HashMap(tenant_id=case.get('tenant'))


def datapoint(point):
    if 'raw' in point:
        desc = json.loads(point['raw'])
        metadata, groupby = desc.get('metadata', {}), desc.get('groupby', {})
    else:
        metadata, groupby = point.get('metadata', {}), point.get('groupby', {})
    return dataframe.DataPoint(point.get('unit', 'unit'), point['qty'], 0, groupby, metadata)


START = datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc)
END = datetime.datetime(2026, 6, 1, 1, tzinfo=datetime.timezone.utc)


def bench(case, runs):
    started = time.perf_counter()
    engine = load_engine(case)
    load_s = time.perf_counter() - started
    frame = dataframe.DataFrame(start=START, end=END)
    order = {}
    for index, point in enumerate(case['points']):
        frame.add_point(datapoint(point), point['service'])
        order.setdefault(point['service'], []).append(index)
    timings = []
    output = None
    for _ in range(runs):
        started = time.perf_counter()
        output = engine.process(frame)  # the pricing loop, nothing else
        timings.append(time.perf_counter() - started)
    prices = [None] * len(case['points'])
    for service, points in output.itertypes():
        for index, point in zip(order[service], points):
            prices[index] = str(point.price)
    return {'prices': prices}, timings, load_s


def probe(case):
    engine = load_engine(case)
    prices = []
    for point in case['points']:
        frame = dataframe.DataFrame(start=START, end=END)
        try:
            frame.add_point(datapoint(point), point['service'])
            priced = list(engine.process(frame).iterpoints())
            prices.append(str(priced[0][1].price))
        except Exception as error:  # noqa: reported, not hidden
            prices.append({'error': '%s: %s' % (type(error).__name__, error)})
    return {'prices': prices}


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else '-'
    if source == '-':
        request = json.load(sys.stdin)
    else:
        with open(source) as handle:
            request = json.load(handle)
    info = {'python': platform.python_version(),
            'decimal_context': {'prec': decimal.getcontext().prec,
                                'rounding': decimal.getcontext().rounding}}
    try:
        from importlib import metadata
        info['cloudkitty'] = metadata.version('cloudkitty')
    except Exception:
        info['cloudkitty'] = 'unknown'
    if request.get('mode', 'bench') == 'bench':
        [case] = request['cases']
        result, timings, load_s = bench(case, int(request.get('runs', 3)))
        out = dict(info, cases=[result], timings_s=timings, best_s=min(timings),
                   points=len(case['points']), load_s=load_s)
    else:
        out = dict(info, cases=[probe(case) for case in request['cases']])
    json.dump(out, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
