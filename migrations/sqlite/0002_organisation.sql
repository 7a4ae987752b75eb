-- What groups organise around their jobs: projects with priority grants (P2), templates
-- and their grants (T1–T3), loans between groups (B1), configuration changes waiting for
-- a second reviewer (B2, A4), policy versions with their history (A3, O1), and archive
-- tags (A2).

-- A project's priority grant: its jobs may run at `class` until `expires_at` (P2).
CREATE TABLE projects (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id    BIGINT NOT NULL REFERENCES groups (id),
    name        TEXT NOT NULL,
    class       TEXT NOT NULL CHECK (class IN ('batch', 'experiment', 'normal', 'critical')), -- highest class granted
    gpu_cap     INTEGER CHECK (gpu_cap >= 1),   -- most GPUs its jobs hold at the granted class; NULL: no cap
    expires_at  BIGINT NOT NULL,                -- the grant lapses; its jobs fall back to normal
    reminded_at BIGINT,                         -- when the owners were warned of the expiry (NULL: not yet)
    granted_by  TEXT NOT NULL,                  -- who granted or last renewed it
    created_at  BIGINT NOT NULL,
    UNIQUE (group_id, name)
);

-- A frozen job shape that one click launches (T1).
CREATE TABLE templates (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id       BIGINT NOT NULL REFERENCES groups (id), -- the owning group
    name           TEXT NOT NULL,
    category       TEXT NOT NULL CHECK (category IN ('training', 'inference', 'pretraining')),
    class          TEXT NOT NULL CHECK (class IN ('batch', 'experiment', 'normal', 'critical')),
    gpus           INTEGER NOT NULL CHECK (gpus >= 1),
    model          TEXT NOT NULL,
    topology       TEXT NOT NULL CHECK (topology IN ('any', 'same-node', 'same-nvlink')),
    time_limit_s   BIGINT CHECK (time_limit_s > 0),
    checkpointable BOOLEAN NOT NULL,
    image          TEXT NOT NULL,                 -- container image or environment name
    command        TEXT NOT NULL,
    env            TEXT NOT NULL,                 -- JSON object of environment variables
    created_by     TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    retired_at     BIGINT,                        -- retired templates launch nothing (T3)
    retired_by     TEXT,
    UNIQUE (group_id, name)
);

-- Another group may use a template once its owner granted it (T2).
CREATE TABLE template_grants (
    template_id BIGINT NOT NULL REFERENCES templates (id),
    group_id    BIGINT NOT NULL REFERENCES groups (id),
    granted_by  TEXT NOT NULL,
    granted_at  BIGINT NOT NULL,
    PRIMARY KEY (template_id, group_id)
);

-- Capacity one group lends another (B1). A request runs nothing until the lender approves.
CREATE TABLE loans (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    lender_id    BIGINT NOT NULL REFERENCES groups (id),
    borrower_id  BIGINT REFERENCES groups (id), -- NULL: an open offer any group may use
    model        TEXT NOT NULL,
    gpus         INTEGER NOT NULL CHECK (gpus >= 1),
    ends_at      BIGINT NOT NULL,               -- the GPUs return to the lender then
    state        TEXT NOT NULL CHECK (state IN ('requested', 'rejected', 'active', 'returned', 'reclaimed')),
    why          TEXT NOT NULL,                 -- the requester's reason
    requested_by TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    decided_by   TEXT,                          -- the lender's manager who approved or rejected (A4)
    decided_at   BIGINT,
    decision     TEXT,                          -- their reason
    ended_by     TEXT,                          -- who returned or reclaimed it
    ended_at     BIGINT
);
CREATE INDEX loans_by_state ON loans (state);

-- A cross-group configuration change waiting for a second person's review (B2, A4).
CREATE TABLE changes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT NOT NULL,                  -- "quota"
    summary     TEXT NOT NULL,                  -- the change in words
    payload     TEXT NOT NULL,                  -- JSON the change applies
    state       TEXT NOT NULL CHECK (state IN ('proposed', 'applied', 'rejected')),
    proposed_by TEXT NOT NULL,
    proposed_at BIGINT NOT NULL,
    reviewed_by TEXT,                           -- never the proposer
    reviewed_at BIGINT,
    review_note TEXT
);

-- Every uploaded policy module, content-addressed (A3).
CREATE TABLE policy_versions (
    sha256      TEXT PRIMARY KEY,
    kind        TEXT,                           -- priority / quota / reclaim; NULL if it did not load
    interface   TEXT,                           -- the policy interface version it exports
    author      TEXT NOT NULL,
    note        TEXT NOT NULL,                  -- the change that produced it (A3)
    state       TEXT NOT NULL,                  -- rejected / validated / shadow / canary / active / retired
    detail      TEXT NOT NULL,                  -- JSON: validation errors, canary groups
    promotion_requested_by TEXT,                -- waiting for a second admin (B2)
    module      BLOB NOT NULL, -- the component's bytes
    uploaded_at BIGINT NOT NULL
);

-- Each version's changes of state, who made them and why (A3, A4).
CREATE TABLE policy_transitions (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256 TEXT NOT NULL REFERENCES policy_versions (sha256),
    seq    INTEGER NOT NULL,                    -- order within the version's history
    state  TEXT NOT NULL,
    detail TEXT NOT NULL,
    actor  TEXT NOT NULL,
    at     BIGINT NOT NULL,
    note   TEXT NOT NULL,
    UNIQUE (sha256, seq)
);

-- Archive tags on jobs, searchable by group and year (A2).
CREATE TABLE job_tags (
    job_id BIGINT NOT NULL REFERENCES jobs (id),
    tag    TEXT NOT NULL,
    PRIMARY KEY (job_id, tag)
);
CREATE INDEX job_tags_by_tag ON job_tags (tag);

ALTER TABLE jobs ADD COLUMN project_id BIGINT REFERENCES projects (id);   -- the grant it runs under
ALTER TABLE jobs ADD COLUMN template_id BIGINT REFERENCES templates (id); -- what launched it (T3 usage)
ALTER TABLE jobs ADD COLUMN finished_at BIGINT;                           -- when it left the cluster
