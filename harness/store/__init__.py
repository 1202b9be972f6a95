"""run.db's only owner: its schema (declared once, versioned, migrated), its one writer and its
one typed reader. No other module opens run.db or writes SQL (tests/test_layers.py checks it).

* :mod:`~tablecert.harness.store.schema`: the tables, :data:`SCHEMA_VERSION`, the migration of
  a run database of the previous release, the map from records to columns;
* :class:`RunStore` (:mod:`~tablecert.harness.store.writer`): writes a run's record, batch by
  batch, each in one transaction;
* :class:`RunReader` and :func:`open_reader` (:mod:`~tablecert.harness.store.reader`): reads it
  as records (:mod:`tablecert.harness.model`) and small typed rows (run.db's files are never
  links: :func:`tablecert.harness.lab_files.check_database_files` first);
* :mod:`~tablecert.harness.store.responses`: an offline vendor's answers, indexed in a scratch
  database while they are judged.
"""

from tablecert.harness.store.reader import (ConfusionCell, DatabaseError, FailureHead, FaultGroup, HandCause, PlainHand,
                                            Refused, RefusedAnswer, RunReader, StoredFailure, UnreadableRun, open_reader)
from tablecert.harness.store.schema import SCHEMA_VERSION, SchemaError
from tablecert.harness.store.writer import RunStore, StorageError

__all__ = ["SCHEMA_VERSION", "ConfusionCell", "DatabaseError", "FailureHead", "FaultGroup", "HandCause", "PlainHand",
           "Refused", "RefusedAnswer", "RunReader", "RunStore", "SchemaError", "StorageError", "StoredFailure",
           "UnreadableRun", "open_reader"]
