"""Master's `cloudkitty-dbsync`, as the reference layout tests run it on an empty PostgreSQL database.

Our own test helper (run with `run.sh python dbsync_reference.py --config-file F upgrade`). CloudKitty
master (4595e098) cannot finish its migrations on an empty PostgreSQL database because of two
CloudKitty defects, which this wrapper works around and nothing else:

1. migration 8a591f85865f (hashmap) adds `description` as `Text(length=256)`, which SQLAlchemy
   renders `TEXT(256)` and PostgreSQL refuses: Text is rendered without a length here;
2. migration c6e4cda29654 (pyscripts) drops the script-name unique constraint by MySQL's name
   `name`; PostgreSQL named it `pyscripts_scripts_name_key`: the drop is redirected there.

It also skips the data migrations' reads of `hashmap_mappings` / `pyscripts_scripts` (the tables
are empty; the reads would go through a second session that cannot see the uncommitted DDL).
"""
import contextlib
import sys

from sqlalchemy import Text
from sqlalchemy.ext.compiler import compiles


@compiles(Text, 'postgresql')
def _text_without_length(type_, compiler, **kw):
    return 'TEXT'


import cloudkitty.db  # noqa: E402  (after the compiler hook)

_session_for_write = cloudkitty.db.session_for_write
_EMPTY_TABLES = ('hashmap_mappings', 'pyscripts_scripts')


class _EmptyRuleTables:
    """A session whose queries of the empty rule tables return no rows without asking the database."""

    def __init__(self, session):
        self._session = session

    def __getattr__(self, name):
        return getattr(self._session, name)

    def query(self, model, *args, **kwargs):
        if getattr(model, '__tablename__', '') in _EMPTY_TABLES:
            return self
        return self._session.query(model, *args, **kwargs)

    def with_for_update(self):
        return self

    def all(self):
        return []


@contextlib.contextmanager
def _session(*args, **kwargs):
    with _session_for_write(*args, **kwargs) as session:
        yield _EmptyRuleTables(session)


cloudkitty.db.session_for_write = _session

from alembic.operations import ops  # noqa: E402

_batch_drop_constraint = ops.DropConstraintOp.batch_drop_constraint.__func__


def _drop_constraint(cls, operations, constraint_name, type_=None):
    if constraint_name == 'name' and operations.impl.dialect.name == 'postgresql':
        constraint_name = 'pyscripts_scripts_name_key'
    return _batch_drop_constraint(cls, operations, constraint_name, type_=type_)


ops.DropConstraintOp.batch_drop_constraint = classmethod(_drop_constraint)

sys.argv[0] = 'cloudkitty-dbsync'
from cloudkitty.cli.dbsync import main  # noqa: E402

sys.exit(main())
