#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Make one sqlite database safe for several API processes at once.

Glance's APIs share one database. With pysqlite's default deferred
transactions two processes that both read then write deadlock into
"database is locked" (HTTP 500s, half-deleted rows). Taking the write lock
up front with BEGIN IMMEDIATE and letting a blocked connection wait
(busy_timeout) turns that into short queueing instead of errors.
"""

import sqlite3

import sqlalchemy
from sqlalchemy import event

BUSY_TIMEOUT_MS = 60000


def _is_sqlite(dbapi_conn):
    return isinstance(dbapi_conn, sqlite3.Connection)


def _on_connect(dbapi_conn, connection_record):
    if not _is_sqlite(dbapi_conn):
        return
    # NOTE: we emit BEGIN ourselves below, so pysqlite must not.
    dbapi_conn.isolation_level = None
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA busy_timeout = %d' % BUSY_TIMEOUT_MS)
    # NOTE: WAL lets readers of other processes go on while one writes.
    cursor.execute('PRAGMA journal_mode = WAL')
    cursor.close()


def _on_begin(conn):
    if conn.engine.dialect.name != 'sqlite':
        return
    if 'in_transaction' not in conn.info:
        conn.exec_driver_sql('BEGIN IMMEDIATE')
        # NOTE: oslo.db's own sqlite "begin" hook checks this key and would
        # otherwise emit a second, plain BEGIN.
        conn.info['in_transaction'] = True


def _on_end(conn):
    conn.info.pop('in_transaction', None)


def install():
    """Register the hooks for every SQLAlchemy engine of this process."""
    if event.contains(sqlalchemy.engine.Engine, 'begin', _on_begin):
        return
    event.listen(sqlalchemy.engine.Engine, 'connect', _on_connect)
    event.listen(sqlalchemy.engine.Engine, 'begin', _on_begin)
    event.listen(sqlalchemy.engine.Engine, 'commit', _on_end)
    event.listen(sqlalchemy.engine.Engine, 'rollback', _on_end)
