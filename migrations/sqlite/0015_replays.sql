-- Replays before promotion (issue 15, O1, A3): a policy version run over the
-- organisation's recorded submissions of a period on the simulator's core, compared with
-- the active version and with what happened. Kept with the version so the admin who
-- approves its promotion reads it. Times are Unix seconds (UTC).
CREATE TABLE policy_replays (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256       TEXT NOT NULL REFERENCES policy_versions (sha256), -- the version replayed
    since        BIGINT NOT NULL,   -- the period's start
    until        BIGINT NOT NULL,   -- the period's end (excluded)
    requested_by TEXT NOT NULL,     -- the admin who ran it
    at           BIGINT NOT NULL,   -- when it ran
    comparison   TEXT NOT NULL      -- JSON: the figures of what happened, the active version and the candidate
);
CREATE INDEX policy_replays_by_version ON policy_replays (sha256, id);
