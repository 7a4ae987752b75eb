-- Agents on the nodes: they register their GPUs, report utilisation and what runs, and
-- stop jobs gracefully (SIGTERM, a grace period to checkpoint, SIGKILL) when told to.

ALTER TABLE nodes ADD COLUMN agent BOOLEAN NOT NULL DEFAULT FALSE; -- an agent runs its jobs: GPUs free only when it confirms
ALTER TABLE nodes ADD COLUMN last_seen_at BIGINT;                  -- the agent's last sync (heartbeat)
ALTER TABLE nodes ADD COLUMN lost_at BIGINT;                       -- set when heartbeats stopped; cleared when it returns

-- A node's credential: the agent presents it on every call. Only its sha256 is kept.
CREATE TABLE node_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    token_sha256 TEXT NOT NULL UNIQUE,
    node_name    TEXT NOT NULL,                 -- the node it may register as
    created_by   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    revoked_at   BIGINT                         -- refused from then on
);

-- Each GPU as its agent last reported it (V1, R2).
CREATE TABLE node_gpus (
    node_id         BIGINT NOT NULL REFERENCES nodes (id),
    idx             INTEGER NOT NULL,           -- the GPU's index on the node (bit of gpu_mask)
    uuid            TEXT NOT NULL,
    util_pct        INTEGER NOT NULL,           -- utilisation, 0-100
    memory_used_mb  BIGINT NOT NULL,
    memory_total_mb BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (node_id, idx)
);

ALTER TABLE allocations ADD COLUMN stop_reason TEXT;          -- why its agent was told to stop it: preempted, cancelled, idle, ...
ALTER TABLE allocations ADD COLUMN stop_requested_at BIGINT;  -- when; its GPUs stay held until the agent confirms
ALTER TABLE allocations ADD COLUMN stop_requested_ms BIGINT;  -- the same in milliseconds, for reclaim latency
ALTER TABLE allocations ADD COLUMN drain_for BIGINT;          -- the job waiting for these GPUs, if any
ALTER TABLE allocations ADD COLUMN acked_at BIGINT;           -- when the agent first reported it running
ALTER TABLE allocations ADD COLUMN idle_since BIGINT;         -- all its GPUs below the idle threshold since (R2)
ALTER TABLE allocations ADD COLUMN idle_notice_at BIGINT;     -- when the owners were told it will be reclaimed
ALTER TABLE allocations ADD COLUMN exit_code INTEGER;         -- the command's exit status, when it exited by itself

ALTER TABLE jobs ADD COLUMN segments INTEGER NOT NULL DEFAULT 0; -- segments started; from the second on it resumes (D4)

-- What a job's command printed, as its agent sent it.
CREATE TABLE job_logs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id        BIGINT NOT NULL REFERENCES jobs (id),
    allocation_id BIGINT NOT NULL REFERENCES allocations (id),
    at            BIGINT NOT NULL,
    chunk         TEXT NOT NULL
);
CREATE INDEX job_logs_by_job ON job_logs (job_id);
