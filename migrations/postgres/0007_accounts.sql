-- Sign-in throttling (issue 10, finding 6): failed sign-ins counted per username and per
-- client address in a window; past the limit the key is blocked until `blocked_until`
-- and no password is checked for it. One row per key, and nothing is written while a
-- key is blocked, so a flood of attempts adds no rows and no writes.
CREATE TABLE login_throttle (
    key           TEXT PRIMARY KEY,   -- `user:<name>` or `addr:<ip>`
    window_start  BIGINT NOT NULL,    -- the first failure of the current window
    failures      BIGINT NOT NULL,    -- failures since window_start
    blocked_until BIGINT              -- refused without a check until then; NULL: not blocked
);
