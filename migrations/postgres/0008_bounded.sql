-- Bounded work per request: an index for each list and check on a hot path that 0005
-- left without one. A template's usage (count and last launch) and the retirement
-- review read jobs by template and submission time; a project's running GPUs and its
-- grant's cap read jobs by project and state; a submission checks its model against
-- the nodes; a group's template cap counts its templates.

CREATE INDEX jobs_by_template_time ON jobs (template_id, submitted_at);
CREATE INDEX jobs_by_project ON jobs (project_id, state);
CREATE INDEX nodes_by_model ON nodes (model);
CREATE INDEX templates_by_group ON templates (group_id, retired_at);
