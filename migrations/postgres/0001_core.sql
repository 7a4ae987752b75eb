-- Tidepool's durable records: who may do what, the cluster, quotas, jobs and every
-- decision. Times are Unix seconds (BIGINT) so both engines store them alike.
-- Applied migrations are never edited; a change is a new file.

CREATE TABLE groups (
    id          BIGSERIAL PRIMARY KEY,                 -- surrogate key
    name        TEXT NOT NULL UNIQUE, -- as shown to people ("vision", "speech")
    created_at  BIGINT NOT NULL       -- when an admin created it
);

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,          -- login name
    password_hash TEXT NOT NULL,                 -- argon2id PHC string; never the password
    role          TEXT NOT NULL CHECK (role IN ('admin', 'manager', 'member')), -- Q6 tier
    group_id      BIGINT REFERENCES groups (id), -- managers and members belong to one group
    created_at    BIGINT NOT NULL,
    CHECK (role = 'admin' OR group_id IS NOT NULL)
);

CREATE TABLE nodes (
    id           BIGSERIAL PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,  -- host name the agent registers with
    pool         TEXT NOT NULL,         -- pool / region (V1, V2)
    model        TEXT NOT NULL,         -- GPU model ("A100-80G")
    gpus         INTEGER NOT NULL CHECK (gpus BETWEEN 1 AND 64),
    nvlink_group INTEGER NOT NULL,      -- GPUs per NVLink domain (= gpus: one domain)
    healthy      BOOLEAN NOT NULL,      -- false: offers no GPUs; its jobs are requeued
    created_at   BIGINT NOT NULL
);

CREATE TABLE quotas (
    id           BIGSERIAL PRIMARY KEY,
    group_id     BIGINT NOT NULL REFERENCES groups (id),
    model        TEXT NOT NULL,
    category     TEXT NOT NULL CHECK (category IN ('training', 'inference', 'pretraining')), -- Q2
    guaranteed   INTEGER NOT NULL CHECK (guaranteed >= 0),  -- GPUs always available (Q1)
    borrow_limit INTEGER CHECK (borrow_limit >= 0),         -- most GPUs above the guarantee; NULL: no limit
    lend_limit   INTEGER CHECK (lend_limit >= 0),           -- most of the guarantee lent out; NULL: all of it
    budget_gpu_h DOUBLE PRECISION,                                   -- monthly GPU-hour budget (Q3); NULL: none
    UNIQUE (group_id, model, category)
);

CREATE TABLE jobs (
    id             BIGSERIAL PRIMARY KEY,
    group_id       BIGINT NOT NULL REFERENCES groups (id),
    submitted_by   BIGINT NOT NULL REFERENCES users (id),
    name           TEXT NOT NULL,
    category       TEXT NOT NULL CHECK (category IN ('training', 'inference', 'pretraining')),
    class          TEXT NOT NULL CHECK (class IN ('batch', 'experiment', 'normal', 'critical')),
    gpus           INTEGER NOT NULL CHECK (gpus >= 1),
    model          TEXT NOT NULL,
    topology       TEXT NOT NULL CHECK (topology IN ('any', 'same-node', 'same-nvlink')),
    time_limit_s   BIGINT CHECK (time_limit_s > 0),   -- NULL: the configured default plans it
    checkpointable BOOLEAN NOT NULL,
    command        TEXT NOT NULL,                     -- what the agent runs
    state          TEXT NOT NULL CHECK (state IN ('pending', 'running', 'succeeded', 'failed', 'timed-out', 'cancelled')),
    reason         TEXT,                              -- why it is pending, in words (from the last cycle)
    position       INTEGER,                           -- place in the queue at the last cycle
    submitted_at   BIGINT NOT NULL,
    queued_at      BIGINT NOT NULL,                   -- last entered the queue (submit or interruption)
    attained_gpu_s BIGINT NOT NULL DEFAULT 0          -- GPU-seconds received over all segments (D4)
);
CREATE INDEX jobs_by_state ON jobs (state);

CREATE TABLE allocations (
    id         BIGSERIAL PRIMARY KEY,
    job_id     BIGINT NOT NULL REFERENCES jobs (id),
    node_id    BIGINT NOT NULL REFERENCES nodes (id),
    gpu_mask   BIGINT NOT NULL,   -- bit i: GPU i of the node
    borrowed   TEXT NOT NULL,     -- JSON list of loan shares: GPUs counted against lenders
    epoch      BIGINT NOT NULL,   -- dispatcher epoch that granted it (fencing, O3)
    started_at BIGINT NOT NULL,
    ended_at   BIGINT             -- NULL while the GPUs are held (R1, R3)
);
CREATE INDEX allocations_live ON allocations (ended_at);

CREATE TABLE events (
    id        BIGSERIAL PRIMARY KEY,
    at        BIGINT NOT NULL,
    kind      TEXT NOT NULL,          -- "submitted", "placed", "preempted", "policy-fault", ...
    job_id    BIGINT,                 -- the job it concerns, if any (D2, D3)
    actor     TEXT,                   -- user or component that caused it
    policy    TEXT,                   -- policy versions that decided (D3, A3)
    message   TEXT NOT NULL,          -- the decision and its reason, in words
    detail    TEXT NOT NULL           -- JSON for tools
);
CREATE INDEX events_by_job ON events (job_id);

CREATE TABLE leader_lease (
    id         INTEGER PRIMARY KEY CHECK (id = 1), -- one row
    holder     TEXT NOT NULL,                       -- the dispatcher holding the lease
    epoch      BIGINT NOT NULL,                     -- increments on every takeover; decisions carry it
    expires_at BIGINT NOT NULL
);
