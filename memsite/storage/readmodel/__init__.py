"""The indexed read model: ``cache/index.sqlite3``, one row per entry file, kept in step with
entries/ by taking in only what changed.

Derived and disposable: it is rebuilt from entries/ alone whenever it is missing, unreadable,
of another memsite version, or corrupt (with a one-line notice). One module per job:

* ``facade``: :class:`Index`, the database file and its freshness, and the write path;
* ``schema``: the tables and the version; ``rows``: rows as values, the one transaction
  helper and the SQL helpers;
* ``prepare``: entry files read, parsed and analysed (the first build's hot loop);
* ``ingest``: what changed, taken in; ``statuses``: statuses decided by component;
* ``queries``, ``search``, ``views``: the objects that read it (``index.entries``,
  ``index.records``, ``index.search``, ``index.views``);
* ``snapshot``: a read-only look on a connection of its own, for a forked child.
"""

from memsite.storage.readmodel.facade import Index
from memsite.storage.readmodel.rows import Candidate, Row
from memsite.storage.readmodel.snapshot import Snapshot

__all__ = ["Candidate", "Index", "Row", "Snapshot"]
