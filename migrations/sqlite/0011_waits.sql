-- Reasons over time (D2): each job keeps the history of why it waited, one row per span
-- of one kind of reason ("quota", "capacity", ...), opened by the cycle that first gave
-- that kind and closed when the kind changes, the job starts or it is cancelled. The
-- text is the reason as first given in the span; `jobs.reason` keeps the latest words.
CREATE TABLE job_waits (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id  BIGINT NOT NULL REFERENCES jobs (id),
    kind    TEXT NOT NULL,
    reason  TEXT NOT NULL,
    since   BIGINT NOT NULL,
    until   BIGINT              -- NULL while the job still waits for this
);
CREATE INDEX job_waits_by_job ON job_waits (job_id, since);
CREATE INDEX job_waits_by_time ON job_waits (since);
-- The kind of the open span, so a cycle compares without reading the history.
ALTER TABLE jobs ADD COLUMN wait_kind TEXT;
