"""The worker's leadership: one worker per database processes events."""

from __future__ import annotations

from d2 import db


class Leadership:
    """The leadership lock's own connection (sql/functions/lideranca_tentar.sql).

    Taken, the lock is held by a transaction this connection keeps open, idle, for as
    long as the worker leads; closing the connection (or losing it) releases it. The
    writing connection cannot hold it: it commits after every batch.
    """

    def __init__(self, url: str) -> None:
        # Never prepared: the portal of a prepared statement keeps its snapshot while the
        # transaction idles, and that xmin would hold back VACUUM for the whole lead.
        self.conn = db.connect(url, application_name="d2-worker-lideranca", prepare_threshold=None)
        self.pid = 0
        try:
            with db.mapped_errors():
                self.conn.execute(db.q("leader_session_settings"))
                self.conn.commit()
        except BaseException:
            self.conn.close()
            raise

    def __enter__(self) -> Leadership:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def tentar(self) -> bool:
        """Take the lock if it is free; never waits."""
        with db.mapped_errors():
            row = self.conn.execute(db.q("leader_try_lock")).fetchone()
            if not (row and row["leader"]):
                self.conn.rollback()
                return False
        self.pid = int(row["pid"])
        return True

    def confirmar(self) -> None:
        """Raises a transient error when the lock's connection is gone (then the session
        ends and the worker goes back to standby)."""
        with db.mapped_errors():
            self.conn.execute(db.q("leader_check"))
