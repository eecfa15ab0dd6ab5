# The dataframe of rating.md section 1 inside the sandbox's interpreter (never in the API
# process): from JSON to Python objects and back, and its validation. Loaded first; harness.py
# runs after it in the same namespace. Read by python-source.ts; the build copies it into dist/.
#
# In: vol.qty and rating.price become decimal.Decimal (exact: from the decimal text), the period
# bounds UTC-aware datetime.datetime (an ISO text without offset is UTC). A point without rating
# gets price 0, without groupby/metadata an empty dict.
# Out: the same checks on what a script left (Decimal, int, float or decimal text for quantities
# and prices; datetime or ISO text for the period; JSON values elsewhere, Decimal and datetime
# included, at most 32 levels deep), then decimals as str(Decimal) and datetimes as ISO 8601 UTC.
# This code's own builtins: a script replacing builtins.len must not break it.
__builtins__ = dict(__import__('builtins').__dict__)

import decimal as _decimal_mod
import datetime as _datetime_mod
import json as _json
import math as _math

_Decimal = _decimal_mod.Decimal
_DecimalException = _decimal_mod.DecimalException
_datetime = _datetime_mod.datetime
_UTC = _datetime_mod.timezone.utc
_isfinite = _math.isfinite
_MISSING = object()
_MAX_DEPTH = 32
_json_loads = _json.loads
_json_dumps = _json.dumps
_SCALARS = frozenset((str, int, bool, type(None)))
_ONLY_STR = frozenset((str,))


class DataframeError(Exception):
    """The dataframe is not one of rating.md section 1; the message says where and why."""


def _where(path):
    return 'data' + ''.join('[%r]' % (part,) for part in path)


def _to_decimal(value, path):
    kind = type(value)
    if kind is _Decimal:
        number = value
    elif kind is str:
        try:
            number = _Decimal(value)
        except (_DecimalException, ValueError):
            raise DataframeError('%s is not a decimal number: %r' % (_where(path), value[:40])) from None
    elif kind is int:
        number = _Decimal(value)
    elif kind is float:
        number = _Decimal(repr(value))
    elif value is _MISSING:
        raise DataframeError('%s is missing' % _where(path))
    else:
        raise DataframeError('%s must be a decimal number, not %s' % (_where(path), kind.__name__))
    if not number.is_finite():
        raise DataframeError('%s must be a finite number, not %s' % (_where(path), number))
    return number


def _to_datetime(value, path):
    kind = type(value)
    if kind is str:
        try:
            value = _datetime.fromisoformat(value)
        except ValueError:
            raise DataframeError('%s is not an ISO 8601 datetime: %r' % (_where(path), value[:40])) from None
    elif value is _MISSING:
        raise DataframeError('%s is missing' % _where(path))
    elif not isinstance(value, _datetime):
        raise DataframeError('%s must be a datetime, not %s' % (_where(path), kind.__name__))
    if value.tzinfo is None:
        return value.replace(tzinfo=_UTC)
    try:
        return value.astimezone(_UTC)
    except (OverflowError, ValueError) as error:
        raise DataframeError('%s cannot be expressed in UTC: %s' % (_where(path), error)) from None


def _iso(value, path):
    return _to_datetime(value, path).isoformat()


def _check_value(value, path, depth):
    """A JSON value (Decimal and datetime allowed), at most _MAX_DEPTH containers deep."""
    kind = type(value)
    if kind in _SCALARS or kind is _datetime:
        return
    if kind is float:
        if not _isfinite(value):
            raise DataframeError('%s must be a finite number, not %r' % (_where(path), value))
        return
    if kind is _Decimal:
        if not value.is_finite():
            raise DataframeError('%s must be a finite number, not %s' % (_where(path), value))
        return
    if depth >= _MAX_DEPTH:
        raise DataframeError('%s is nested too deeply (more than %d levels)' % (_where(path), _MAX_DEPTH))
    if isinstance(value, dict):
        _check_mapping(value, path, depth + 1)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if type(item) not in _SCALARS:
                _check_value(item, path + (index,), depth + 1)
    else:
        raise DataframeError('%s holds a %s, which has no JSON form' % (_where(path), kind.__name__))


def _check_mapping(mapping, path, depth):
    for key, item in mapping.items():
        if type(key) is not str:
            raise DataframeError('%s has a key %r that is not a string' % (_where(path), key))
        if type(item) not in _SCALARS:
            _check_value(item, path + (key,), depth)


def _dict_at(container, key, path):
    value = container.get(key, _MISSING)
    if value is _MISSING:
        raise DataframeError('%s is missing' % _where(path + (key,)))
    if not isinstance(value, dict):
        raise DataframeError('%s must be a dict, not %s' % (_where(path + (key,)), type(value).__name__))
    return value


def _points_of(data):
    if not isinstance(data, dict):
        raise DataframeError('data must be a dict, not %s' % type(data).__name__)
    usage = _dict_at(data, 'usage', ())
    for service, points in usage.items():
        if type(service) is not str:
            raise DataframeError("data['usage'] has a key %r that is not a string" % (service,))
        if not isinstance(points, (list, tuple)):
            raise DataframeError('%s must be a list, not %s' % (_where(('usage', service)), type(points).__name__))
        yield service, points


def _check_points(service, points):
    """Checks every point. The common shape takes a fast path of mostly C-level operations;
    anything else gets the full check, which says what is wrong and where."""
    scalar_types = _SCALARS.issuperset
    text_keys = _ONLY_STR.issuperset
    Decimal = _Decimal
    for index, point in enumerate(points):
        if type(point) is dict and len(point) == 4:
            vol = point.get('vol')
            rating = point.get('rating')
            groupby = point.get('groupby')
            metadata = point.get('metadata')
            if (type(vol) is dict and type(rating) is dict and type(groupby) is dict and type(metadata) is dict
                    and len(rating) == 1 and type(rating.get('price')) is Decimal and rating['price'].is_finite()
                    and type(vol.get('qty')) is Decimal and vol['qty'].is_finite()
                    and (len(vol) == 1 or (len(vol) == 2 and type(vol.get('unit')) is str))
                    and text_keys(map(type, groupby)) and scalar_types(map(type, groupby.values()))
                    and text_keys(map(type, metadata)) and scalar_types(map(type, metadata.values()))):
                continue
        _check_point(point, ('usage', service, index))


def _check_point(point, path):
    """The full check of one point, with a message saying what is wrong and where."""
    if not isinstance(point, dict):
        raise DataframeError('%s must be a dict, not %s' % (_where(path), type(point).__name__))
    vol = _dict_at(point, 'vol', path)
    _to_decimal(vol.get('qty', _MISSING), path + ('vol', 'qty'))
    unit = vol.get('unit')
    if unit is not None and type(unit) is not str:
        raise DataframeError('%s must be a string' % _where(path + ('vol', 'unit')))
    _to_decimal(_dict_at(point, 'rating', path).get('price', _MISSING), path + ('rating', 'price'))
    for key in ('groupby', 'metadata'):
        _dict_at(point, key, path)
    _check_mapping(point, path, 0)


def _convert_point(point, path):
    """One point of the input: decimals from their text, defaults for what may be left out."""
    if not isinstance(point, dict):
        raise DataframeError('%s must be a dict, not %s' % (_where(path), type(point).__name__))
    vol = _dict_at(point, 'vol', path)
    vol['qty'] = _to_decimal(vol.get('qty', _MISSING), path + ('vol', 'qty'))
    rating = point.get('rating')
    if rating is None:
        point['rating'] = {'price': _Decimal(0)}
    else:
        rating = _dict_at(point, 'rating', path)
        rating['price'] = _to_decimal(rating.get('price', 0), path + ('rating', 'price'))
    for key in ('groupby', 'metadata'):
        if point.get(key) is None:
            point[key] = {}


def frame_from_json(text):
    """The dataframe for the first script, from the JSON text the API process sent."""
    data = _json_loads(text)
    if not isinstance(data, dict):
        raise DataframeError('data must be a dict, not %s' % type(data).__name__)
    period = _dict_at(data, 'period', ())
    for key in ('begin', 'end'):
        period[key] = _to_datetime(period.get(key, _MISSING), ('period', key))
    Decimal = _Decimal
    for service, points in _points_of(data):
        for index, point in enumerate(points):
            # Fast path: decimal texts, as the API process sends them.
            if type(point) is dict:
                vol = point.get('vol')
                rating = point.get('rating')
                if type(vol) is dict and type(rating) is dict and type(vol.get('qty')) is str and type(rating.get('price')) is str:
                    try:
                        vol['qty'] = Decimal(vol['qty'])
                        rating['price'] = Decimal(rating['price'])
                        if type(point.get('groupby')) is dict and type(point.get('metadata')) is dict:
                            continue
                    except (ValueError, _DecimalException):
                        pass
            _convert_point(point, ('usage', service, index))
    check_frame(data)
    return data


def check_frame(data):
    """Raises DataframeError unless data is a dataframe a script may leave."""
    for service, points in _points_of(data):
        _check_points(service, points)
    period = _dict_at(data, 'period', ())
    for key in ('begin', 'end'):
        _to_datetime(period.get(key, _MISSING), ('period', key))
    for key, item in data.items():
        if type(key) is not str:
            raise DataframeError('data has a key %r that is not a string' % (key,))
        if key != 'usage':
            _check_value(item, (key,), 1)


def _json_default(value):
    if type(value) is _Decimal:
        return str(value)
    if isinstance(value, _datetime):
        return _iso(value, ('...',))
    raise TypeError('%s has no JSON form' % type(value).__name__)


def frame_to_json(data):
    """JSON text of a checked dataframe; converts data in place (it is not used afterwards)."""
    period = data['period']
    for key in ('begin', 'end'):
        period[key] = _iso(period[key], ('period', key))
    Decimal = _Decimal
    for service, points in _points_of(data):
        for index, point in enumerate(points):
            vol = point['vol']
            qty = vol['qty']
            vol['qty'] = str(qty if type(qty) is Decimal else _to_decimal(qty, ('usage', service, index, 'vol', 'qty')))
            rating = point['rating']
            price = rating['price']
            rating['price'] = str(price if type(price) is Decimal else _to_decimal(price, ('usage', service, index, 'rating', 'price')))
    return _json_dumps(data, default=_json_default, allow_nan=False, ensure_ascii=False, separators=(',', ':'))
