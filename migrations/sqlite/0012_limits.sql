-- Time limits by class (issue 13, P1): every priority class has a default time limit, given
-- to a job that names none, and a maximum no job of the class may ask for. Admins change
-- them (each change is an event). Jobs submitted before this table existed keep their NULL
-- time_limit_s: the server holds them to their class's maximum from now on, rather than
-- this migration rewriting what their submitters asked for.
CREATE TABLE class_limits (
    class TEXT PRIMARY KEY,        -- batch, experiment, normal or critical
    default_s BIGINT NOT NULL,     -- the limit of a job of the class that names none, seconds
    max_s BIGINT NOT NULL,         -- the longest limit a job of the class may have, seconds
    set_by TEXT,                   -- the admin who last changed it; NULL: as shipped
    set_at BIGINT,                 -- when (unix seconds)
    CHECK (default_s > 0 AND default_s <= max_s)
);
-- As shipped: experiments are short (4 h, at most a day) so they turn over and start
-- promptly; batch fills troughs for a day (at most three); normal and critical work runs a
-- day by default, as the planner already assumed of jobs without a limit, and at most a
-- week, checkpointing to go on longer (D4).
INSERT INTO class_limits (class, default_s, max_s) VALUES
    ('batch', 86400, 259200),
    ('experiment', 14400, 86400),
    ('normal', 86400, 604800),
    ('critical', 86400, 604800);
