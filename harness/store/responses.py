"""An offline vendor's answers while they are judged (``tablecert validate``): indexed by vector
file and tcId in a scratch SQLite file beside the run database, so a responses file of any size is
read once, checked for duplicates as it is read, and each batch's answers are looked up without
holding the file in memory. The scratch file is removed when the judging ends."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any


class AnswerIndex:
    """The answers read so far: (file, tcId) -> the answer's compact JSON text."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("CREATE TABLE answers (file TEXT NOT NULL, tc INTEGER NOT NULL, answer TEXT NOT NULL, "
                        "PRIMARY KEY (file, tc)) WITHOUT ROWID")
        self.db.execute("BEGIN")

    @classmethod
    def beside(cls, folder: Path) -> tuple[AnswerIndex, Path]:
        """A new index in a scratch file of an unpredictable name in ``folder``, and that file."""
        fd, path = tempfile.mkstemp(prefix=".responses-", suffix=".db", dir=folder)
        os.close(fd)
        return cls(path), Path(path)

    def add(self, file: str, tc: int, answer: Any) -> bool:
        """Keep ``answer`` for (file, tcId); False, keeping nothing, when one is already kept."""
        try:
            self.db.execute("INSERT INTO answers VALUES (?, ?, ?)", (file, tc, json.dumps(answer, separators=(",", ":"))))
        except sqlite3.IntegrityError:
            return False
        return True

    def done(self) -> None:
        """Every answer read: commit them."""
        if self.db.in_transaction:
            self.db.execute("COMMIT")

    def between(self, file: str, first: int, last: int) -> dict[int, Any]:
        """The answers kept for ``file`` from tcId ``first`` to ``last``."""
        rows = self.db.execute("SELECT tc, answer FROM answers WHERE file = ? AND tc BETWEEN ? AND ?",
                               (file, first, last))
        return {tc: json.loads(text) for tc, text in rows}

    def tc_ids(self, file: str) -> set[int]:
        return {tc for (tc,) in self.db.execute("SELECT tc FROM answers WHERE file = ?", (file,))}

    def close(self) -> None:
        self.db.close()
