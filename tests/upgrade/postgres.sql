--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: _sqlx_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public._sqlx_migrations (
    version bigint NOT NULL,
    description text NOT NULL,
    installed_on timestamp with time zone DEFAULT now() NOT NULL,
    success boolean NOT NULL,
    checksum bytea NOT NULL,
    execution_time bigint NOT NULL
);


--
-- Name: alert_cursor; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_cursor (
    id integer NOT NULL,
    last_event_id bigint NOT NULL,
    CONSTRAINT alert_cursor_id_check CHECK ((id = 1))
);


--
-- Name: alert_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_deliveries (
    id bigint NOT NULL,
    alert_id bigint NOT NULL,
    round bigint NOT NULL,
    channel text NOT NULL,
    recipient text NOT NULL,
    attempts bigint NOT NULL,
    next_at bigint NOT NULL,
    delivered_at bigint,
    error text,
    CONSTRAINT alert_deliveries_channel_check CHECK ((channel = ANY (ARRAY['email'::text, 'webhook'::text])))
);


--
-- Name: alert_deliveries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.alert_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: alert_deliveries_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.alert_deliveries_id_seq OWNED BY public.alert_deliveries.id;


--
-- Name: alert_reads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_reads (
    alert_id bigint NOT NULL,
    user_id bigint NOT NULL,
    read_at bigint NOT NULL
);


--
-- Name: alert_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alert_settings (
    id integer NOT NULL,
    webhook text,
    shape text NOT NULL,
    updated_by text,
    updated_at bigint,
    CONSTRAINT alert_settings_id_check CHECK ((id = 1)),
    CONSTRAINT alert_settings_shape_check CHECK ((shape = ANY (ARRAY['json'::text, 'chat'::text])))
);


--
-- Name: alerts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alerts (
    id bigint NOT NULL,
    dedup_key text NOT NULL,
    rule text NOT NULL,
    severity text NOT NULL,
    group_id bigint,
    audience text NOT NULL,
    subject text NOT NULL,
    message text NOT NULL,
    linger_s bigint NOT NULL,
    opened_at bigint NOT NULL,
    last_seen_at bigint NOT NULL,
    resolved_at bigint,
    acknowledged_at bigint,
    acknowledged_by text,
    sent_at bigint NOT NULL,
    rounds bigint NOT NULL,
    CONSTRAINT alerts_audience_check CHECK ((audience = ANY (ARRAY['admins'::text, 'managers'::text, 'members'::text]))),
    CONSTRAINT alerts_severity_check CHECK ((severity = ANY (ARRAY['info'::text, 'warning'::text, 'critical'::text])))
);


--
-- Name: alerts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.alerts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: alerts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.alerts_id_seq OWNED BY public.alerts.id;


--
-- Name: allocations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.allocations (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    node_id bigint NOT NULL,
    gpu_mask bigint NOT NULL,
    borrowed text NOT NULL,
    epoch bigint NOT NULL,
    started_at bigint NOT NULL,
    ended_at bigint,
    stop_reason text,
    stop_requested_at bigint,
    stop_requested_ms bigint,
    drain_for bigint,
    acked_at bigint,
    idle_since bigint,
    idle_notice_at bigint,
    exit_code integer,
    sampled_at bigint,
    sampled_gpu_s bigint DEFAULT 0 NOT NULL,
    util_pct_gpu_s bigint DEFAULT 0 NOT NULL,
    idle_gpu_s bigint DEFAULT 0 NOT NULL
);


--
-- Name: allocations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.allocations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: allocations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.allocations_id_seq OWNED BY public.allocations.id;


--
-- Name: changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.changes (
    id bigint NOT NULL,
    kind text NOT NULL,
    summary text NOT NULL,
    payload text NOT NULL,
    state text NOT NULL,
    proposed_by text NOT NULL,
    proposed_at bigint NOT NULL,
    reviewed_by text,
    reviewed_at bigint,
    review_note text,
    CONSTRAINT changes_state_check CHECK ((state = ANY (ARRAY['proposed'::text, 'applied'::text, 'rejected'::text])))
);


--
-- Name: changes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: changes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.changes_id_seq OWNED BY public.changes.id;


--
-- Name: class_limits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.class_limits (
    class text NOT NULL,
    default_s bigint NOT NULL,
    max_s bigint NOT NULL,
    set_by text,
    set_at bigint,
    CONSTRAINT class_limits_check CHECK (((default_s > 0) AND (default_s <= max_s)))
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    at bigint NOT NULL,
    kind text NOT NULL,
    job_id bigint,
    actor text,
    policy text,
    message text NOT NULL,
    detail text NOT NULL
);


--
-- Name: events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_id_seq OWNED BY public.events.id;


--
-- Name: gpu_prices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.gpu_prices (
    model text NOT NULL,
    cents_per_gpu_hour bigint NOT NULL,
    set_by text NOT NULL,
    set_at bigint NOT NULL,
    CONSTRAINT gpu_prices_cents_per_gpu_hour_check CHECK ((cents_per_gpu_hour >= 0))
);


--
-- Name: groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.groups (
    id bigint NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL
);


--
-- Name: groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: groups_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.groups_id_seq OWNED BY public.groups.id;


--
-- Name: job_logs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_logs (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    allocation_id bigint NOT NULL,
    at bigint NOT NULL,
    chunk text NOT NULL,
    agent_offset bigint,
    log_offset bigint DEFAULT 0 NOT NULL
);


--
-- Name: job_logs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.job_logs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: job_logs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.job_logs_id_seq OWNED BY public.job_logs.id;


--
-- Name: job_tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_tags (
    job_id bigint NOT NULL,
    tag text NOT NULL
);


--
-- Name: job_waits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_waits (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    kind text NOT NULL,
    reason text NOT NULL,
    since bigint NOT NULL,
    until bigint
);


--
-- Name: job_waits_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.job_waits_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: job_waits_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.job_waits_id_seq OWNED BY public.job_waits.id;


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    submitted_by bigint NOT NULL,
    name text NOT NULL,
    category text NOT NULL,
    class text NOT NULL,
    gpus integer NOT NULL,
    model text NOT NULL,
    topology text NOT NULL,
    time_limit_s bigint,
    checkpointable boolean NOT NULL,
    command text NOT NULL,
    state text NOT NULL,
    reason text,
    "position" integer,
    submitted_at bigint NOT NULL,
    queued_at bigint NOT NULL,
    attained_gpu_s bigint DEFAULT 0 NOT NULL,
    project_id bigint,
    template_id bigint,
    finished_at bigint,
    segments integer DEFAULT 0 NOT NULL,
    estimated_start bigint,
    log_bytes bigint DEFAULT 0 NOT NULL,
    log_capped boolean DEFAULT false NOT NULL,
    image text,
    env text,
    wait_kind text,
    CONSTRAINT jobs_category_check CHECK ((category = ANY (ARRAY['training'::text, 'inference'::text, 'pretraining'::text]))),
    CONSTRAINT jobs_class_check CHECK ((class = ANY (ARRAY['batch'::text, 'experiment'::text, 'normal'::text, 'critical'::text]))),
    CONSTRAINT jobs_gpus_check CHECK ((gpus >= 1)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'timed-out'::text, 'cancelled'::text]))),
    CONSTRAINT jobs_time_limit_s_check CHECK ((time_limit_s > 0)),
    CONSTRAINT jobs_topology_check CHECK ((topology = ANY (ARRAY['any'::text, 'same-node'::text, 'same-nvlink'::text])))
);


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.jobs_id_seq OWNED BY public.jobs.id;


--
-- Name: leader_lease; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leader_lease (
    id integer NOT NULL,
    holder text NOT NULL,
    epoch bigint NOT NULL,
    expires_at bigint NOT NULL,
    CONSTRAINT leader_lease_id_check CHECK ((id = 1))
);


--
-- Name: loans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.loans (
    id bigint NOT NULL,
    lender_id bigint NOT NULL,
    borrower_id bigint,
    model text NOT NULL,
    gpus integer NOT NULL,
    ends_at bigint NOT NULL,
    state text NOT NULL,
    why text NOT NULL,
    requested_by text NOT NULL,
    requested_at bigint NOT NULL,
    decided_by text,
    decided_at bigint,
    decision text,
    ended_by text,
    ended_at bigint,
    CONSTRAINT loans_gpus_check CHECK ((gpus >= 1)),
    CONSTRAINT loans_state_check CHECK ((state = ANY (ARRAY['requested'::text, 'rejected'::text, 'active'::text, 'returned'::text, 'reclaimed'::text])))
);


--
-- Name: loans_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.loans_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: loans_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.loans_id_seq OWNED BY public.loans.id;


--
-- Name: login_throttle; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_throttle (
    key text NOT NULL,
    window_start bigint NOT NULL,
    failures bigint NOT NULL,
    blocked_until bigint
);


--
-- Name: node_gpus; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.node_gpus (
    node_id bigint NOT NULL,
    idx integer NOT NULL,
    uuid text NOT NULL,
    util_pct integer NOT NULL,
    memory_used_mb bigint NOT NULL,
    memory_total_mb bigint NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: node_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.node_tokens (
    id bigint NOT NULL,
    token_sha256 text NOT NULL,
    node_name text NOT NULL,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    expires_at bigint,
    pool text,
    last_used_at bigint
);


--
-- Name: node_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.node_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: node_tokens_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.node_tokens_id_seq OWNED BY public.node_tokens.id;


--
-- Name: nodes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nodes (
    id bigint NOT NULL,
    name text NOT NULL,
    pool text NOT NULL,
    model text NOT NULL,
    gpus integer NOT NULL,
    nvlink_group integer NOT NULL,
    healthy boolean NOT NULL,
    created_at bigint NOT NULL,
    agent boolean DEFAULT false NOT NULL,
    last_seen_at bigint,
    lost_at bigint,
    CONSTRAINT nodes_gpus_check CHECK (((gpus >= 1) AND (gpus <= 64)))
);


--
-- Name: nodes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.nodes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: nodes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.nodes_id_seq OWNED BY public.nodes.id;


--
-- Name: org_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_settings (
    id integer NOT NULL,
    time_zone text NOT NULL,
    currency text NOT NULL,
    report_webhook text,
    updated_by text,
    updated_at bigint,
    CONSTRAINT org_settings_id_check CHECK ((id = 1))
);


--
-- Name: policy_transitions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policy_transitions (
    id bigint NOT NULL,
    sha256 text NOT NULL,
    seq integer NOT NULL,
    state text NOT NULL,
    detail text NOT NULL,
    actor text NOT NULL,
    at bigint NOT NULL,
    note text NOT NULL
);


--
-- Name: policy_transitions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.policy_transitions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: policy_transitions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.policy_transitions_id_seq OWNED BY public.policy_transitions.id;


--
-- Name: policy_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.policy_versions (
    sha256 text NOT NULL,
    kind text,
    interface text,
    author text NOT NULL,
    note text NOT NULL,
    state text NOT NULL,
    detail text NOT NULL,
    promotion_requested_by text,
    module bytea NOT NULL,
    uploaded_at bigint NOT NULL,
    canary_requested_by text,
    canary_requested text
);


--
-- Name: projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projects (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    name text NOT NULL,
    class text NOT NULL,
    gpu_cap integer,
    expires_at bigint NOT NULL,
    reminded_at bigint,
    granted_by text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT projects_class_check CHECK ((class = ANY (ARRAY['batch'::text, 'experiment'::text, 'normal'::text, 'critical'::text]))),
    CONSTRAINT projects_gpu_cap_check CHECK ((gpu_cap >= 1))
);


--
-- Name: projects_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.projects_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: projects_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.projects_id_seq OWNED BY public.projects.id;


--
-- Name: quotas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.quotas (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    model text NOT NULL,
    category text NOT NULL,
    guaranteed integer NOT NULL,
    borrow_limit integer,
    lend_limit integer,
    budget_gpu_h double precision,
    CONSTRAINT quotas_borrow_limit_check CHECK ((borrow_limit >= 0)),
    CONSTRAINT quotas_category_check CHECK ((category = ANY (ARRAY['training'::text, 'inference'::text, 'pretraining'::text]))),
    CONSTRAINT quotas_guaranteed_check CHECK ((guaranteed >= 0)),
    CONSTRAINT quotas_lend_limit_check CHECK ((lend_limit >= 0))
);


--
-- Name: quotas_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.quotas_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: quotas_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.quotas_id_seq OWNED BY public.quotas.id;


--
-- Name: refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.refresh_tokens (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    family text NOT NULL,
    token_sha256 text NOT NULL,
    issued_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    family_expires_at bigint NOT NULL,
    used_at bigint,
    revoked_at bigint
);


--
-- Name: refresh_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.refresh_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: refresh_tokens_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.refresh_tokens_id_seq OWNED BY public.refresh_tokens.id;


--
-- Name: report_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.report_deliveries (
    id bigint NOT NULL,
    report_id bigint NOT NULL,
    channel text NOT NULL,
    recipient text NOT NULL,
    sent_at bigint NOT NULL,
    error text,
    CONSTRAINT report_deliveries_channel_check CHECK ((channel = ANY (ARRAY['email'::text, 'webhook'::text])))
);


--
-- Name: report_deliveries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.report_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: report_deliveries_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.report_deliveries_id_seq OWNED BY public.report_deliveries.id;


--
-- Name: template_grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.template_grants (
    template_id bigint NOT NULL,
    group_id bigint NOT NULL,
    granted_by text NOT NULL,
    granted_at bigint NOT NULL
);


--
-- Name: templates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.templates (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    name text NOT NULL,
    category text NOT NULL,
    class text NOT NULL,
    gpus integer NOT NULL,
    model text NOT NULL,
    topology text NOT NULL,
    time_limit_s bigint,
    checkpointable boolean NOT NULL,
    image text NOT NULL,
    command text NOT NULL,
    env text NOT NULL,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    retired_at bigint,
    retired_by text,
    CONSTRAINT templates_category_check CHECK ((category = ANY (ARRAY['training'::text, 'inference'::text, 'pretraining'::text]))),
    CONSTRAINT templates_class_check CHECK ((class = ANY (ARRAY['batch'::text, 'experiment'::text, 'normal'::text, 'critical'::text]))),
    CONSTRAINT templates_gpus_check CHECK ((gpus >= 1)),
    CONSTRAINT templates_time_limit_s_check CHECK ((time_limit_s > 0)),
    CONSTRAINT templates_topology_check CHECK ((topology = ANY (ARRAY['any'::text, 'same-node'::text, 'same-nvlink'::text])))
);


--
-- Name: templates_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.templates_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: templates_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.templates_id_seq OWNED BY public.templates.id;


--
-- Name: usage_hours; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_hours (
    hour bigint NOT NULL,
    group_id bigint NOT NULL,
    pool text NOT NULL,
    model text NOT NULL,
    category text NOT NULL,
    held_gpu_s bigint NOT NULL,
    sampled_gpu_s bigint NOT NULL,
    util_pct_gpu_s bigint NOT NULL,
    idle_gpu_s bigint NOT NULL,
    jobs_started bigint NOT NULL,
    jobs_finished bigint NOT NULL,
    wait_s bigint NOT NULL
);


--
-- Name: usage_rollup; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_rollup (
    id integer NOT NULL,
    rolled_until bigint NOT NULL,
    CONSTRAINT usage_rollup_id_check CHECK ((id = 1))
);


--
-- Name: usage_samples; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_samples (
    hour bigint NOT NULL,
    allocation_id bigint NOT NULL,
    sampled_gpu_s bigint NOT NULL,
    util_pct_gpu_s bigint NOT NULL,
    idle_gpu_s bigint NOT NULL
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id bigint NOT NULL,
    username text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    group_id bigint,
    created_at bigint NOT NULL,
    email text,
    CONSTRAINT users_check CHECK (((role = 'admin'::text) OR (group_id IS NOT NULL))),
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'manager'::text, 'member'::text])))
);


--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;


--
-- Name: weekly_reports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.weekly_reports (
    id bigint NOT NULL,
    group_id bigint NOT NULL,
    week text NOT NULL,
    frozen_at bigint NOT NULL,
    body text NOT NULL
);


--
-- Name: weekly_reports_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.weekly_reports_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: weekly_reports_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.weekly_reports_id_seq OWNED BY public.weekly_reports.id;


--
-- Name: alert_deliveries id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_deliveries ALTER COLUMN id SET DEFAULT nextval('public.alert_deliveries_id_seq'::regclass);


--
-- Name: alerts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts ALTER COLUMN id SET DEFAULT nextval('public.alerts_id_seq'::regclass);


--
-- Name: allocations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocations ALTER COLUMN id SET DEFAULT nextval('public.allocations_id_seq'::regclass);


--
-- Name: changes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.changes ALTER COLUMN id SET DEFAULT nextval('public.changes_id_seq'::regclass);


--
-- Name: events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN id SET DEFAULT nextval('public.events_id_seq'::regclass);


--
-- Name: groups id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups ALTER COLUMN id SET DEFAULT nextval('public.groups_id_seq'::regclass);


--
-- Name: job_logs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs ALTER COLUMN id SET DEFAULT nextval('public.job_logs_id_seq'::regclass);


--
-- Name: job_waits id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_waits ALTER COLUMN id SET DEFAULT nextval('public.job_waits_id_seq'::regclass);


--
-- Name: jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs ALTER COLUMN id SET DEFAULT nextval('public.jobs_id_seq'::regclass);


--
-- Name: loans id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loans ALTER COLUMN id SET DEFAULT nextval('public.loans_id_seq'::regclass);


--
-- Name: node_tokens id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.node_tokens ALTER COLUMN id SET DEFAULT nextval('public.node_tokens_id_seq'::regclass);


--
-- Name: nodes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes ALTER COLUMN id SET DEFAULT nextval('public.nodes_id_seq'::regclass);


--
-- Name: policy_transitions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_transitions ALTER COLUMN id SET DEFAULT nextval('public.policy_transitions_id_seq'::regclass);


--
-- Name: projects id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects ALTER COLUMN id SET DEFAULT nextval('public.projects_id_seq'::regclass);


--
-- Name: quotas id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quotas ALTER COLUMN id SET DEFAULT nextval('public.quotas_id_seq'::regclass);


--
-- Name: refresh_tokens id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens ALTER COLUMN id SET DEFAULT nextval('public.refresh_tokens_id_seq'::regclass);


--
-- Name: report_deliveries id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.report_deliveries ALTER COLUMN id SET DEFAULT nextval('public.report_deliveries_id_seq'::regclass);


--
-- Name: templates id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.templates ALTER COLUMN id SET DEFAULT nextval('public.templates_id_seq'::regclass);


--
-- Name: users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);


--
-- Name: weekly_reports id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.weekly_reports ALTER COLUMN id SET DEFAULT nextval('public.weekly_reports_id_seq'::regclass);


--
-- Data for Name: _sqlx_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public._sqlx_migrations VALUES (1, 'core', '2026-11-30 18:19:51.844201+00', true, '\xf25bd087060cc605212f47274482449f51073093f89d2d97d001ffc270c611cd21e3ff222e1dd709f7a355405c0f5ae8', 282623729);
INSERT INTO public._sqlx_migrations VALUES (2, 'organisation', '2026-11-30 18:19:52.271762+00', true, '\xbcf8b3309ea9c40c6444fed8d39def514d419e647353d810ee39e2257bae8ddbc89c44e6d8c1de891477c845fc9631f0', 155527359);
INSERT INTO public._sqlx_migrations VALUES (3, 'agents', '2026-11-30 18:19:52.440171+00', true, '\xac33bec4700ae4245d2528ff41be4ec80ba26f9bf1621ae33c2dba56355195c3b38a828034fabe26a4c786f0b5921858', 31068461);
INSERT INTO public._sqlx_migrations VALUES (4, 'estimates', '2026-11-30 18:19:52.47148+00', true, '\x6ffabc0c0f32bbf225b8e463eadab1478e0716fad5dd8967893706cbf8854f2934c2582c01e397206ae4ddfb48a1d7c0', 1048394);
INSERT INTO public._sqlx_migrations VALUES (5, 'security', '2026-11-30 18:19:52.472809+00', true, '\x5be1cfb36f472f1788a785280d6852f86fe5cf5150f77fc7d2d0d3ae7e5918a8a7f1fcbda9ae219c528c874ed9a38f40', 29813136);
INSERT INTO public._sqlx_migrations VALUES (6, 'log offsets', '2026-11-30 18:19:52.504367+00', true, '\x652e3239db4be6fb3d711d58f0ad6052d9940281a15eeaea24ae0ed5208e2e7e72e823a30ae82bb456b5a45fe87a0b13', 4746578);
INSERT INTO public._sqlx_migrations VALUES (7, 'accounts', '2026-11-30 18:19:52.508555+00', true, '\xf3c0f81e2d68688d5a396a27e7fb062385a96fa10b95cbaf5d3552fdc43f6e67a4b8590950e15ef034f102c9df40a0e0', 6865970);
INSERT INTO public._sqlx_migrations VALUES (8, 'bounded', '2026-11-30 18:19:52.514803+00', true, '\xe27ac2cfac98d1dae5ff25da705cae9d0eef7d0085430366ee624d7264a2932ad8a6097bbb893d1916b479393ed51770', 1047904);
INSERT INTO public._sqlx_migrations VALUES (9, 'history', '2026-11-30 18:19:52.51593+00', true, '\xe8fcb0818210f8fec18fe85a9dcc8931eb9d08d1b513b12248bf57ec98f57316c2e6be3381b97238a66571c77f67dea5', 38921281);
INSERT INTO public._sqlx_migrations VALUES (10, 'usage', '2026-11-30 18:19:52.555063+00', true, '\xcfc99d470db1ce431ff92b394dec5a410a33b48bf855f3b6bc392e029fead695154ac3c43abd7b736b3f3e0d55f7f4ed', 1084529);
INSERT INTO public._sqlx_migrations VALUES (11, 'waits', '2026-11-30 18:19:52.556245+00', true, '\x078c097813a1fd6d3d11070df68f91537295dcdee44566174240c3a3d1c9947dc149ae271cd00ff1ce2bcb4297f529ce', 6824657);
INSERT INTO public._sqlx_migrations VALUES (12, 'limits', '2026-11-30 18:19:52.5632+00', true, '\xe99322865733b2cf2d4ecfdde32c77ab5d55b200922b7050ceac93e95f8a6b38ff68c90eb6dfbaebe5fed7ae8be203f4', 3994889);
INSERT INTO public._sqlx_migrations VALUES (13, 'alerts', '2026-11-30 18:19:52.567311+00', true, '\xb98040048def8d0af6f7b9f75c3cd7eb8189bdcdffe630b8967d7398b2306096f809594f7d6b7b8d6ffbe0ac8dfe8746', 24874259);


--
-- Data for Name: alert_cursor; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.alert_cursor VALUES (1, 0);


--
-- Data for Name: alert_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: alert_reads; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: alert_settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.alert_settings VALUES (1, NULL, 'json', NULL, NULL);


--
-- Data for Name: alerts; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: allocations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.allocations VALUES (1, 1, 1, 1, '[]', 1, 1796062798, 1796062798, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0);
INSERT INTO public.allocations VALUES (2, 2, 1, 2, '[]', 1, 1796062798, 1796062799, NULL, NULL, NULL, NULL, 1796062799, NULL, NULL, 3, NULL, 0, 0, 0);
INSERT INTO public.allocations VALUES (3, 3, 1, 1, '[]', 1, 1796062799, 1796062860, NULL, NULL, NULL, NULL, 1796062800, NULL, NULL, 143, 1796062859, 59, 5900, 0);
INSERT INTO public.allocations VALUES (4, 4, 1, 3, '[]', 1, 1796062860, 1796062861, 'cancelled', 1796062861, 1796062861119, NULL, 1796062860, NULL, NULL, 143, 1796062861, 2, 200, 0);
INSERT INTO public.allocations VALUES (5, 5, 1, 15, '[]', 1, 1796062861, NULL, NULL, NULL, NULL, NULL, 1796062861, NULL, NULL, NULL, 1796062865, 16, 1600, 0);


--
-- Data for Name: changes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.changes VALUES (1, 'quota', 'vision A100-80G training: guarantee 4 GPUs, budget 100000 GPU-h (vision trains)', '{"group":"vision","model":"A100-80G","category":"training","guaranteed":4,"borrow_limit":null,"lend_limit":null,"budget_gpu_h":100000.0}', 'applied', 'admin', 1796062795, 'grace', 1796062795, 'agreed');
INSERT INTO public.changes VALUES (2, 'quota', 'speech A100-80G training: guarantee 4 GPUs, budget none GPU-h (speech trains)', '{"group":"speech","model":"A100-80G","category":"training","guaranteed":4,"borrow_limit":null,"lend_limit":4,"budget_gpu_h":null}', 'applied', 'admin', 1796062795, 'grace', 1796062796, 'agreed');


--
-- Data for Name: class_limits; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.class_limits VALUES ('batch', 86400, 259200, NULL, NULL);
INSERT INTO public.class_limits VALUES ('experiment', 14400, 86400, NULL, NULL);
INSERT INTO public.class_limits VALUES ('normal', 86400, 604800, NULL, NULL);
INSERT INTO public.class_limits VALUES ('critical', 86400, 604800, NULL, NULL);


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES (1, 1796062795, 'change-proposed', NULL, 'admin', NULL, 'admin proposed change 1: vision A100-80G training: guarantee 4 GPUs, budget 100000 GPU-h (vision trains)', '{"change":1}');
INSERT INTO public.events VALUES (2, 1796062795, 'change-proposed', NULL, 'admin', NULL, 'admin proposed change 2: speech A100-80G training: guarantee 4 GPUs, budget none GPU-h (speech trains)', '{"change":2}');
INSERT INTO public.events VALUES (3, 1796062795, 'change-applied', NULL, 'grace', NULL, 'grace applied change 1: agreed', '{"change":1}');
INSERT INTO public.events VALUES (4, 1796062796, 'change-applied', NULL, 'grace', NULL, 'grace applied change 2: agreed', '{"change":2}');
INSERT INTO public.events VALUES (5, 1796062796, 'node-token', NULL, 'tidepool admin', NULL, 'tidepool admin issued node token 1 for node node-1, in pool east', '{"node_name":"node-1","pool":"east","token":1}');
INSERT INTO public.events VALUES (6, 1796062796, 'node-registered', NULL, 'agent node-1', NULL, 'node node-1 registered 8 × A100-80G in pool east', '{"node":1,"pool":"east","token":1}');
INSERT INTO public.events VALUES (7, 1796062798, 'template-created', NULL, 'ada', NULL, 'ada created template eval-1gpu', '{"template":1}');
INSERT INTO public.events VALUES (8, 1796062798, 'submitted', 1, 'ada', NULL, 'ada submitted a job (1 GPUs)', '{}');
INSERT INTO public.events VALUES (9, 1796062798, 'placed', 1, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'job 1 placed on node-1 GPUs 0x1: within the group''s guarantee', '{"slots":[{"node":1,"node_name":"node-1","gpu_mask":1}]}');
INSERT INTO public.events VALUES (10, 1796062798, 'submitted', 2, 'ada', NULL, 'ada submitted a job (1 GPUs)', '{}');
INSERT INTO public.events VALUES (11, 1796062798, 'finished', 1, 'agent node-1', NULL, 'job 1 exited with status 0; it held 1 GPUs on node-1 for 0 s', '{"node_name":"node-1","allocation":1,"gpus":1,"held_s":0,"exit_code":0}');
INSERT INTO public.events VALUES (12, 1796062798, 'placed', 2, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'job 2 placed on node-1 GPUs 0x2: within the group''s guarantee', '{"slots":[{"node":1,"node_name":"node-1","gpu_mask":2}]}');
INSERT INTO public.events VALUES (13, 1796062799, 'submitted', 3, 'ada', NULL, 'ada submitted a job (1 GPUs)', '{}');
INSERT INTO public.events VALUES (14, 1796062799, 'failed', 2, 'agent node-1', NULL, 'job 2 exited with status 3; it held 1 GPUs on node-1 for 1 s', '{"node_name":"node-1","allocation":2,"gpus":1,"held_s":1,"exit_code":3}');
INSERT INTO public.events VALUES (15, 1796062799, 'placed', 3, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'job 3 placed on node-1 GPUs 0x1: within the group''s guarantee', '{"slots":[{"node":1,"node_name":"node-1","gpu_mask":1}]}');
INSERT INTO public.events VALUES (16, 1796062860, 'timed-out', 3, 'agent node-1', NULL, 'job 3 timedout; it held 1 GPUs on node-1 for 61 s', '{"node_name":"node-1","allocation":3,"gpus":1,"held_s":61,"exit_code":143}');
INSERT INTO public.events VALUES (17, 1796062860, 'submitted', 4, 'ada', NULL, 'ada submitted a job (2 GPUs)', '{}');
INSERT INTO public.events VALUES (18, 1796062860, 'placed', 4, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'job 4 placed on node-1 GPUs 0x3: within the group''s guarantee', '{"slots":[{"node":1,"node_name":"node-1","gpu_mask":3}]}');
INSERT INTO public.events VALUES (19, 1796062861, 'cancelled', 4, 'ada', NULL, 'ada cancelled job 4', '{}');
INSERT INTO public.events VALUES (20, 1796062861, 'submitted', 5, 'ada', NULL, 'ada submitted a job (4 GPUs)', '{}');
INSERT INTO public.events VALUES (21, 1796062861, 'stopped', 4, 'agent node-1', NULL, 'job 4 stopped, stopped: cancelled; it held 2 GPUs on node-1 for 1 s', '{"node_name":"node-1","allocation":4,"gpus":2,"held_s":1,"stop_reason":"cancelled","exit_code":143,"reclaim_latency_ms":37}');
INSERT INTO public.events VALUES (22, 1796062861, 'placed', 5, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'job 5 placed on node-1 GPUs 0xf: within the group''s guarantee', '{"slots":[{"node":1,"node_name":"node-1","gpu_mask":15}]}');
INSERT INTO public.events VALUES (23, 1796062861, 'submitted', 6, 'ada', NULL, 'ada submitted a job (4 GPUs)', '{}');
INSERT INTO public.events VALUES (24, 1796062862, 'loan-requested', NULL, 'speech-lead', NULL, 'speech-lead asked vision for 2 A100-80G GPUs: evaluation', '{"loan":1}');
INSERT INTO public.events VALUES (25, 1796062862, 'loan-active', NULL, 'vision-lead', NULL, 'vision-lead: loan 1 active: approved', '{"loan":1}');
INSERT INTO public.events VALUES (26, 1796062863, 'policy-shadow', NULL, 'dispatcher', 'priority=built-in,quota=built-in,reclaim=built-in', 'priority policy e8802fc0aaee in shadow: {"measure":"rank-correlation","jobs":1,"rho":1.0,"first_choice_same":true}', '{"policy":{"event":"shadow","kind":"priority","sha256":"e8802fc0aaee4ba4595c9374a082be84157521710bc973f0d2fbd1ab0fd62d19","difference":{"measure":"rank-correlation","compared":1,"rho":1.0,"first_choice_same":true}}}');


--
-- Data for Name: gpu_prices; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: groups; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.groups VALUES (1, 'vision', 1796062793);
INSERT INTO public.groups VALUES (2, 'speech', 1796062793);


--
-- Data for Name: job_logs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.job_logs VALUES (1, 1, 1, 1796062798, 'done
', 0, 0);
INSERT INTO public.job_logs VALUES (2, 2, 2, 1796062799, 'oops
', 0, 0);


--
-- Data for Name: job_tags; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.job_tags VALUES (1, 'baseline');


--
-- Data for Name: job_waits; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.job_waits VALUES (1, 5, 'quota', 'over quota: needs 4 GPUs; 2 of the group''s 4 guaranteed are in use or promised to its jobs ahead in the queue, and no approved loan has idle GPUs', 1796062861, 1796062861);
INSERT INTO public.job_waits VALUES (2, 6, 'quota', 'over quota: needs 4 GPUs; 4 of the group''s 4 guaranteed are in use or promised to its jobs ahead in the queue, and no approved loan has idle GPUs', 1796062861, NULL);


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.jobs VALUES (1, 1, 5, 'ok', 'training', 'normal', 1, 'A100-80G', 'any', 86400, false, 'echo done', 'succeeded', NULL, NULL, 1796062798, 1796062798, 0, NULL, NULL, 1796062798, 1, NULL, 5, false, NULL, NULL, NULL);
INSERT INTO public.jobs VALUES (2, 1, 5, 'fails', 'training', 'normal', 1, 'A100-80G', 'any', 86400, false, 'echo oops; exit 3', 'failed', NULL, NULL, 1796062798, 1796062798, 1, NULL, NULL, 1796062799, 1, NULL, 5, false, NULL, NULL, NULL);
INSERT INTO public.jobs VALUES (3, 1, 5, 'too-slow', 'training', 'normal', 1, 'A100-80G', 'any', 60, false, 'sleep 600', 'timed-out', NULL, NULL, 1796062799, 1796062799, 61, NULL, NULL, 1796062860, 1, NULL, 0, false, NULL, NULL, NULL);
INSERT INTO public.jobs VALUES (4, 1, 5, 'cancelled', 'training', 'normal', 2, 'A100-80G', 'any', 86400, false, 'sleep 600', 'cancelled', NULL, NULL, 1796062860, 1796062860, 0, NULL, NULL, 1796062861, 1, NULL, 0, false, NULL, NULL, NULL);
INSERT INTO public.jobs VALUES (5, 1, 5, 'runs', 'training', 'normal', 4, 'A100-80G', 'any', 86400, true, 'sleep 3000', 'running', NULL, NULL, 1796062861, 1796062861, 0, NULL, NULL, NULL, 1, NULL, 0, false, NULL, NULL, NULL);
INSERT INTO public.jobs VALUES (6, 1, 5, 'waits', 'training', 'normal', 4, 'A100-80G', 'any', 86400, false, 'sleep 3000', 'pending', 'over quota: needs 4 GPUs; 4 of the group''s 4 guaranteed are in use or promised to its jobs ahead in the queue, and no approved loan has idle GPUs', 0, 1796062861, 1796062861, 0, NULL, NULL, NULL, 0, NULL, 0, false, NULL, NULL, 'quota');


--
-- Data for Name: leader_lease; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.leader_lease VALUES (1, 'tidepool-578', 1, 1796062868);


--
-- Data for Name: loans; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.loans VALUES (1, 1, 2, 'A100-80G', 2, 1827166862, 'active', 'evaluation', 'speech-lead', 1796062862, 'vision-lead', 1796062862, 'approved', NULL, NULL);


--
-- Data for Name: login_throttle; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: node_gpus; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.node_gpus VALUES (1, 0, 'GPU-fake-0', 100, 40960, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 1, 'GPU-fake-1', 100, 40960, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 2, 'GPU-fake-2', 100, 40960, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 3, 'GPU-fake-3', 100, 40960, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 4, 'GPU-fake-4', 0, 0, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 5, 'GPU-fake-5', 0, 0, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 6, 'GPU-fake-6', 0, 0, 81920, 1796062865);
INSERT INTO public.node_gpus VALUES (1, 7, 'GPU-fake-7', 0, 0, 81920, 1796062865);


--
-- Data for Name: node_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.node_tokens VALUES (1, '26459da4f53e7ebd6b0d9427607022e89af74b91428fd4872a66cbb6b291af35', 'node-1', 'tidepool admin', 1796062796, NULL, NULL, 'east', 1796062856);


--
-- Data for Name: nodes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.nodes VALUES (1, 'node-1', 'east', 'A100-80G', 8, 8, true, 1796062796, true, 1796062865, NULL);


--
-- Data for Name: org_settings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.org_settings VALUES (1, 'UTC', 'EUR', NULL, NULL, NULL);


--
-- Data for Name: policy_transitions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.policy_transitions VALUES (1, 'e8802fc0aaee4ba4595c9374a082be84157521710bc973f0d2fbd1ab0fd62d19', 0, 'validated', '{"state":"validated"}', 'admin', 1796062862, 'uploaded');
INSERT INTO public.policy_transitions VALUES (2, 'e8802fc0aaee4ba4595c9374a082be84157521710bc973f0d2fbd1ab0fd62d19', 1, 'shadow', '{"state":"shadow"}', 'admin', 1796062862, 'shadow beside the active version');


--
-- Data for Name: policy_versions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.policy_versions VALUES ('e8802fc0aaee4ba4595c9374a082be84157521710bc973f0d2fbd1ab0fd62d19', 'priority', '1.0.0', 'admin', 'fifo trial', 'shadow', '{"state":"shadow"}', NULL, '\x0061736d0d00010007820201420a017073017079017075017207036e6f77780667726f75707300066d6f64656c73001464656661756c742d74696d652d6c696d69742d73771067726f75702d67756172616e74656564010d67726f75702d72756e6e696e67011267726f75702d726563656e742d6770752d6802040007636f6e7465787403000301707701707d01707801720b026964050567726f7570010863617465676f72790605636c61737306046770757301056d6f64656c010c74696d652d6c696d69742d73050e636865636b706f696e7461626c65060c7375626d69747465642d617407097175657565642d6174070e61747461696e65642d6770752d73050400046a6f62730300080a2001001b74696465706f6f6c3a706f6c6963792f747970657340312e302e30050001bd700061736d01000000012d0860027f7f0060000060017f0060017f017f60047f7f7f7f017f60027f7f017f60037f7f7f0060047f7f7f7f00031f1e0102000203030201000405000000000602000701000202000000070104040405017001050505030100110619037f01418080c0000b7f00419186c0000b7f0041a086c0000b07ae0107066d656d6f727902002e636162695f706f73745f74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f726500012474696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f726500041f636162695f7265616c6c6f635f7769745f62696e6467656e5f305f36335f30001c0c636162695f7265616c6c6f63001d0a5f5f646174615f656e6403010b5f5f686561705f626173650302090a010041010b0417111b1d0afc6a1e02000bef0101037f200028020821012000280204210202400240024002400240024020002d00000d0020014103742200450d022002417c6a2802002201417871220341044108200141037122011b20006a490d032001450d012003200041276a4d0d0141e081c08000419082c08000108280808000000b2001450d012002417c6a2802002200417871220341044108200041037122001b20016a490d032000450d002003200141276a4b0d040b20021083808080000b0f0b41a081c0800041d081c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b1000200041dd002001108f80808000000ba90901057f200041786a22012000417c6a280200220241787122006a21030240024020024101710d002002410271450d012001280200220220006a21000240200120026b220141002802e485c08000470d0020032802044103714103470d01410020003602dc85c0800020032003280204417e7136020420012000410172360204200320003602000f0b20012002108b808080000b02400240024002400240024002400240200328020422024102710d00200341002802e885c08000460d02200341002802e485c08000460d03200320024178712202108b808080002001200220006a2200410172360204200120006a2000360200200141002802e485c08000470d01410020003602dc85c080000f0b20032002417e7136020420012000410172360204200120006a20003602000b2000418002490d02411f210320004180808008490d030c050b410020013602e885c08000410041002802e085c0800020006a22003602e085c08000200120004101723602040240200141002802e485c08000470d00410041003602dc85c08000410041003602e485c080000b200041002802f485c0800022024d0d0541002802e885c080002200450d0541002802e085c0800022044129490d0341bc83c080002101034002402001280200220320004b0d002000200320012802046a490d050b200128020821010c000b0b410020013602e485c08000410041002802dc85c0800020006a22003602dc85c0800020012000410172360204200120006a20003602000f0b0240024041002802d485c08000220341012000410376742202710d00410020032002723602d485c08000200041f8017141cc83c080006a220021030c010b200041f80171220041cc83c080006a2103200041d483c080006a28020021000b200320013602082000200136020c2001200336020c200120003602080f0b2000412620004108766722036b76410171200341017472413e7321030c010b0240024041002802c483c0800022000d0041ff1f21010c010b410021010340200141016a2101200028020822000d000b200141ff1f200141ff1f4b1b21010b410020013602fc85c08000200420024d0d014100417f3602f485c080000c010b200142003702102001200336021c200341027441bc82c080006a21020240024041002802d885c0800041012003742204710d0020022001360200200120023602182001200136020c20012001360208410041002802d885c080002004723602d885c080000c010b024002400240200228020022042802044178712000470d00200421030c010b20004100411920034101766b2003411f461b742102034020042002411d764104716a22052802102203450d02200241017421022003210420032802044178712000470d000b0b20032802082200200136020c20032001360208200141003602182001200336020c200120003602080c010b200541106a2001360200200120043602182001200136020c200120013602080b410041002802fc85c08000417f6a22013602fc85c0800020010d000240024041002802c483c0800022000d0041ff1f21010c010b410021010340200141016a2101200028020822000d000b200141ff1f200141ff1f4b1b21010b410020013602fc85c080000f0b0ba51a01287f23808080800041206b2201248080808000024041002d009086c080000d00108080808000410041013a009086c080000b0240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240024002400240200028020c220241abd5aad5004f0d002000280208210341002104024002402002410c6c22050d0041042106410021050c010b20051085808080002206450d02200221050b200141003602102001200636020c2001200536020802402002450d004100210520032104410821070340200441046a280200210820042802002109024020052001280208470d00200141086a108680808000200128020c21060b200620076a220a2008360200200a417c6a2009360200200a41786a20083602002001200541016a2205360210200441086a21042007410c6a210720022005470d000b2003417c6a2802002205417871220441044108200541037122051b200241037422076a490d0302402005450d002004200741276a4b0d050b2003108380808000200221040b2000280214220741abd5aad5004f0d002000280210210b4100210c024002402007410c6c22050d0041042106410021030c010b20051085808080002206450d05200721030b2001410036021c200120063602182001200336021402402007450d0041002105200b2104410821080340200441046a280200210a20042802002102024020052001280214470d00200141146a108680808000200128021821060b200620086a2209200a3602002009417c6a2002360200200941786a200a3602002001200541016a220536021c200441086a21042008410c6a210820072005470d000b200b417c6a2802002205417871220441044108200541037122051b200741037422086a490d0602402005450d002004200841276a4b0d080b200b1083808080002001280218210620012802142103200128021021042007210c0b200028028c01210d200028028801210e200028028401210f2000280280012110200028027c2111200028027821122000280274210a20002802702113200028026c2114200028026821152000280264211620002802602117200028025c2102200028025821182000280254210820002802502119200028024c21052000280248211a200028024421092000280240211b2000280234211c2000280230211d200028022c211e2000280228211f2000280224212020002802202121200128020c210b2001280208212202400240200028023c22230d00410821240c010b20002802382125202341037422261085808080002224450d0802402024417c6a2d0000410371450d002026450d00202441002026fc0b000b2025417c6a2802002227417871222841044108202741037122271b20266a490d0902402027450d002028202641276a4b0d0b0b20251083808080000b02402009450d00201b417c6a2802002226417871222541044108202641037122261b200941027422096a490d0b02402026450d002025200941276a4b0d0d0b201b1083808080000b02402005450d00201a417c6a2802002209417871221b41044108200941037122091b20056a490d0d02402009450d00201b200541276a4b0d0f0b201a1083808080000b02402008450d002019417c6a2802002205417871220941044108200541037122051b20086a490d0f02402005450d002009200841276a4b0d110b20191083808080000b02402002450d002018417c6a2802002205417871220841044108200541037122051b200241027422096a490d1102402005450d002008200941276a4b0d130b20181083808080000b02402016450d002017417c6a2802002205417871220841044108200541037122051b201641027422096a490d1302402005450d002008200941276a4b0d150b20171083808080000b02402014450d002015417c6a2802002205417871220841044108200541037122051b201441037422096a490d1502402005450d002008200941276a4b0d170b20151083808080000b0240200a450d002013417c6a2802002205417871220841044108200541037122051b200a6a490d1702402005450d002008200a41276a4b0d190b20131083808080000b02402011450d002012417c6a2802002205417871220841044108200541037122051b2011410374220a6a490d1902402005450d002008200a41276a4b0d1b0b20121083808080000b0240200f450d002010417c6a2802002205417871220841044108200541037122051b200f410374220a6a490d1b02402005450d002008200a41276a4b0d1d0b20101083808080000b0240200d450d00200e417c6a2802002205417871220841044108200541037122051b200d410374220a6a490d1d02402005450d002008200a41276a4b0d1f0b200e1083808080000b02402004450d00200b21050340024020052802002208450d00200541046a2802002209417c6a280200220a417871220241044108200a410371220a1b20086a490d210240200a450d002002200841276a4b0d230b20091083808080000b2005410c6a21052004417f6a22040d000b0b02402022450d00200b417c6a2802002205417871220441044108200541037122051b2022410c6c22086a490d2102402005450d002004200841276a4b0d230b200b1083808080000b0240200c450d00200621050340024020052802002204450d00200541046a280200220a417c6a2802002208417871220941044108200841037122081b20046a490d2502402008450d002009200441276a4b0d270b200a1083808080000b2005410c6a21052007417f6a22070d000b0b02402003450d002006417c6a2802002205417871220441044108200541037122051b2003410c6c22076a490d2502402005450d002004200741276a4b0d270b20061083808080000b02402020450d002021417c6a2802002205417871220441044108200541037122051b202041027422076a490d2702402005450d002004200741276a4b0d290b20211083808080000b0240201e450d00201f417c6a2802002205417871220441044108200541037122051b201e41027422076a490d2902402005450d002004200741276a4b0d2b0b201f1083808080000b0240201c450d00201d417c6a2802002205417871220441044108200541037122051b201c41037422076a490d2b02402005450d002004200741276a4b0d2d0b201d1083808080000b2000417c6a2802002205417871419401419801200541037122041b490d2c02402004450d00200541b8014f0d2e0b20001083808080004100202336028c86c080004100202436028886c08000410041003a008486c08000200141206a248080808000418486c080000f0b108780808000000b41042005108880808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41042005108880808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41082026108880808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000bed2602087f017e0240024002400240200041f501490d000240200041ccff7b4d0d0041000f0b2000410b6a2201417871210241002802d885c080002203450d02411f2104200041f5ffff074f0d012002412620014108766722006b7641017120004101746b413e6a21040c010b02400240024002400240024041002802d485c08000220541102000410b6a41f803712000410b491b22024103762201762200410371450d002000417f7341017120016a2206410374220041cc83c080006a2201200041d483c080006a28020022022802082207460d012007200136020c200120073602080c020b200241002802dc85c080004d0d0620000d0241002802d885c080002200450d0620006841027441bc82c080006a280200220728020441787120026b21012007210503400240200728021022000d00200728021422000d0020052802182104024002400240200528020c22002005470d00200541144110200528021422001b6a28020022070d01410021000c020b20052802082207200036020c200020073602080c010b200541146a200541106a20001b21060340200621082007220041146a200041106a200028021422071b210620004114411020071b6a28020022070d000b200841003602000b2004450d06024002402005200528021c41027441bc82c080006a2207280200460d00024020042802102005460d002004200036021420000d020c090b2004200036021020000d010c080b200720003602002000450d060b20002004360218024020052802102207450d0020002007360210200720003602180b20052802142207450d0620002007360214200720003602180c060b200028020441787120026b22072001200720014922071b21012000200520071b2105200021070c000b0b41002005417e200677713602d485c080000b20022000410372360204200220006a22002000280204410172360204200241086a0f0b02400240200020017441022001742200410020006b7271682208410374220141cc83c080006a2207200141d483c080006a28020022002802082206460d002006200736020c200720063602080c010b41002005417e200877713602d485c080000b20002002410372360204200020026a2205200120026b2207410172360204200020016a2007360200024041002802dc85c080002201450d0041002802e485c0800021020240024041002802d485c08000220641012001410376742208710d00410020062008723602d485c08000200141787141cc83c080006a220121060c010b2001417871220141cc83c080006a2106200141d483c080006a28020021010b200620023602082001200236020c2002200636020c200220013602080b410020053602e485c08000410020073602dc85c08000200041086a0f0b410041002802d885c08000417e200528021c77713602d885c080000b02400240024020014110490d0020052002410372360204200520026a22072001410172360204200720016a200136020041002802dc85c080002206450d0141002802e485c0800021000240024041002802d485c08000220841012006410376742204710d00410020082004723602d485c08000200641787141cc83c080006a220621080c010b2006417871220641cc83c080006a2108200641d483c080006a28020021060b200820003602082006200036020c2000200836020c200020063602080c010b2005200120026a2200410372360204200520006a220020002802044101723602040c010b410020073602e485c08000410020013602dc85c080000b200541086a2200450d010c020b410020026b21010240024002400240200441027441bc82c080006a28020022050d0041002107410021000c010b4100210720024100411920044101766b2004411f461b74210641002100034002402005220528020441787122082002490d00200820026b220820014f0d00200521072008210120080d004100210120052100200521070c030b200528021422082000200820052006411d764104716a2802102205471b200020081b21002006410174210620050d000b0b024020002007720d004100210741022004742200410020006b722003712200450d0320006841027441bc82c080006a28020021000b2000450d010b03402000280204417871220520026b22062001200620014922081b2104200520024921062000200720081b21080240200028021022050d00200028021421050b2001200420061b21012007200820061b21072005210020050d000b0b2007450d00024041002802dc85c0800022002002490d002001200020026b4f0d010b20072802182104024002400240200728020c22002007470d00200741144110200728021422001b6a28020022050d01410021000c020b20072802082205200036020c200020053602080c010b200741146a200741106a20001b21060340200621082005220041146a200041106a200028021422051b210620004114411020051b6a28020022050d000b200841003602000b02402004450d000240024002402007200728021c41027441bc82c080006a2205280200460d00024020042802102007460d002004200036021420000d020c040b2004200036021020000d010c030b200520003602002000450d010b20002004360218024020072802102205450d0020002005360210200520003602180b20072802142205450d0120002005360214200520003602180c010b410041002802d885c08000417e200728021c77713602d885c080000b0240024020014110490d0020072002410372360204200720026a22002001410172360204200020016a200136020002402001418002490d00200020011098808080000c020b0240024041002802d485c08000220541012001410376742206710d00410020052006723602d485c08000200141f8017141cc83c080006a220121050c010b200141f80171220141cc83c080006a2105200141d483c080006a28020021010b200520003602082001200036020c2000200536020c200020013602080c010b2007200120026a2200410372360204200720006a220020002802044101723602040b200741086a22000d010b02400240024002400240024041002802dc85c08000220020024f0d00024041002802e085c08000220020024b0d000240200241af80046a220741107640002201417f470d0041000f0b4100210020014110742205450d07410041002802ec85c0800020074180807c71220041706a20002005410020006b461b22086a22003602ec85c080004100200041002802f085c080002201200020014b1b3602f085c0800002400240024041002802e885c080002201450d0041bc83c080002100034020002802002207200028020422066a2005460d02200028020822000d000c030b0b0240024041002802f885c080002200450d00200020054d0d010b410020053602f885c080000b410041ff1f3602fc85c08000410020083602c083c08000410020053602bc83c08000410041cc83c080003602d883c08000410041d483c080003602e083c08000410041cc83c080003602d483c08000410041dc83c080003602e883c08000410041d483c080003602dc83c08000410041e483c080003602f083c08000410041dc83c080003602e483c08000410041ec83c080003602f883c08000410041e483c080003602ec83c08000410041f483c0800036028084c08000410041ec83c080003602f483c08000410041fc83c0800036028884c08000410041f483c080003602fc83c080004100418484c0800036029084c08000410041fc83c0800036028484c08000410041003602c883c080004100418c84c0800036029884c080004100418484c0800036028c84c080004100418c84c0800036029484c080004100419484c080003602a084c080004100419484c0800036029c84c080004100419c84c080003602a884c080004100419c84c080003602a484c08000410041a484c080003602b084c08000410041a484c080003602ac84c08000410041ac84c080003602b884c08000410041ac84c080003602b484c08000410041b484c080003602c084c08000410041b484c080003602bc84c08000410041bc84c080003602c884c08000410041bc84c080003602c484c08000410041c484c080003602d084c08000410041c484c080003602cc84c08000410041cc84c080003602d884c08000410041d484c080003602e084c08000410041cc84c080003602d484c08000410041dc84c080003602e884c08000410041d484c080003602dc84c08000410041e484c080003602f084c08000410041dc84c080003602e484c08000410041ec84c080003602f884c08000410041e484c080003602ec84c08000410041f484c0800036028085c08000410041ec84c080003602f484c08000410041fc84c0800036028885c08000410041f484c080003602fc84c080004100418485c0800036029085c08000410041fc84c0800036028485c080004100418c85c0800036029885c080004100418485c0800036028c85c080004100419485c080003602a085c080004100418c85c0800036029485c080004100419c85c080003602a885c080004100419485c0800036029c85c08000410041a485c080003602b085c080004100419c85c080003602a485c08000410041ac85c080003602b885c08000410041a485c080003602ac85c08000410041b485c080003602c085c08000410041ac85c080003602b485c08000410041bc85c080003602c885c08000410041b485c080003602bc85c08000410041c485c080003602d085c08000410041bc85c080003602c485c08000410020053602e885c08000410041c485c080003602cc85c080004100200841586a22003602e085c0800020052000410172360204200520006a4128360204410041808080013602f485c080000c080b200120054f0d00200720014b0d00200028020c450d030b410041002802f885c080002200200520002005491b3602f885c08000200520086a210741bc83c0800021000240024002400340200028020022062007460d01200028020822000d000c020b0b200028020c450d010b41bc83c0800021000240034002402000280200220720014b0d002001200720002802046a2207490d020b200028020821000c000b0b410020053602e885c080004100200841586a22003602e085c0800020052000410172360204200520006a4128360204410041808080013602f485c080002001200741606a41787141786a22002000200141106a491b2206411b36020441002902bc83c080002109200641106a41002902c483c08000370200200641086a22002009370200410020083602c083c08000410020053602bc83c08000410020003602c483c08000410041003602c883c080002006411c6a2100034020004107360200200041046a22002007490d000b20062001460d0720062006280204417e713602042001200620016b22004101723602042006200036020002402000418002490d00200120001098808080000c080b0240024041002802d485c08000220741012000410376742205710d00410020072005723602d485c08000200041f8017141cc83c080006a220021070c010b200041f80171220041cc83c080006a2107200041d483c080006a28020021000b200720013602082000200136020c2001200736020c200120003602080c070b200020053602002000200028020420086a360204200520024103723602042006410f6a41787141786a2201200520026a22006b2102200141002802e885c08000460d03200141002802e485c08000460d040240200128020422074103714101470d00200120074178712207108b80808000200720026a2102200120076a220128020421070b20012007417e7136020420002002410172360204200020026a200236020002402002418002490d00200020021098808080000c060b0240024041002802d485c08000220141012002410376742207710d00410020012007723602d485c08000200241f8017141cc83c080006a220221010c010b200241f80171220241cc83c080006a2101200241d483c080006a28020021020b200120003602082002200036020c2000200136020c200020023602080c050b4100200020026b22013602e085c08000410041002802e885c08000220020026a22073602e885c080002007200141017236020420002002410372360204200041086a21000c060b41002802e485c08000210102400240200020026b2207410f4b0d00410041003602e485c08000410041003602dc85c0800020012000410372360204200120006a220020002802044101723602040c010b410020073602dc85c080004100200120026a22053602e485c0800020052007410172360204200120006a2007360200200120024103723602040b200141086a0f0b2000200620086a360204410041002802e885c080002200410f6a417871220141786a22073602e885c080004100200020016b41002802e085c0800020086a22016a41086a22053602e085c0800020072005410172360204200020016a4128360204410041808080013602f485c080000c030b410020003602e885c08000410041002802e085c0800020026a22023602e085c08000200020024101723602040c010b410020003602e485c08000410041002802dc85c0800020026a22023602dc85c0800020002002410172360204200020026a20023602000b200541086a0f0b4100210041002802e085c08000220120024d0d004100200120026b22013602e085c08000410041002802e885c08000220020026a22073602e885c080002007200141017236020420002002410372360204200041086a0f0b20000b7b01037f23808080800041106b2201248080808000200141046a200028020022022000280204200241017422024104200241044b1b2202109a80808000024020012802044101470d002001280208200128020c108880808000000b200128020821032000200236020020002003360204200141106a2480808080000b170041fc80c080004123419081c08000108f80808000000b1c0002402000450d0020002001108d80808000000b108780808000000bad0701067f024002400240024002400240024002402000417c6a22042802002205417871220641044108200541037122071b20016a490d00200141276a210802402007450d00200620084b0d020b0240024020024109490d0020022003108a8080800022020d0141000f0b41002102200341ccff7b4b0d0841102003410b6a4178712003410b491b2101200041786a2108024020070d002001418002490d072008450d07200620014d0d07200620016b418080084b0d0720000f0b200820066a210702400240200620014f0d00200741002802e885c08000460d010240200741002802e485c08000460d00200728020422054102710d092005417871220920066a22052001490d0920072009108b808080000240200520016b22074110490d0020042001200428020041017172410272360200200820016a22012007410372360204200820056a2205200528020441017236020420012007108c808080000c090b20042005200428020041017172410272360200200820056a220120012802044101723602040c080b41002802dc85c0800020066a22072001490d0802400240200720016b2206410f4b0d0020042005410171200772410272360200200820076a2201200128020441017236020441002106410021010c010b20042001200541017172410272360200200820016a22012006410172360204200820076a2207200636020020072007280204417e713602040b410020013602e485c08000410020063602dc85c080000c070b200620016b2206410f4d0d0620042001200541017172410272360200200820016a220120064103723602042007200728020441017236020420012006108c808080000c060b41002802e085c0800020066a220720014b0d040c060b02402003200120032001491b2203450d00200220002003fc0a00000b20042802002203417871220741044108200341037122031b20016a490d022003450d06200720084d0d0641e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b41e081c08000419082c08000108280808000000b41a081c0800041d081c08000108280808000000b20042001200541017172410272360200200820016a2205200720016b2201410172360204410020013602e085c08000410020053602e885c080000b2008450d0020000f0b20031085808080002201450d0102402003417c4178200428020022024103711b20024178716a220220032002491b2203450d00200120002003fc0a00000b200121020b20001083808080000b20020bfb0201057f410021020240200141cdff7b20004110200041104b1b22006b4f0d00200041102001410b6a4178712001410b491b22036a410c6a1085808080002201450d00200141786a2102024002402000417f6a22042001710d00200221000c010b2001417c6a22052802002206417871200420016a410020006b7141786a220141002000200120026b41104b1b6a220020026b22016b210402402006410371450d0020002004200028020441017172410272360204200020046a2204200428020441017236020420052001200528020041017172410272360200200220016a2204200428020441017236020420022001108c808080000c010b20022802002102200020043602042000200220016a3602000b024020002802042201410371450d0020014178712202200341106a4d0d0020002003200141017172410272360204200020036a2201200220036b2203410372360204200020026a2202200228020441017236020420012003108c808080000b200041086a21020b20020b920301047f200028020c210202400240024002402001418002490d002000280218210302400240024020022000470d00200041144110200028021422021b6a28020022010d01410021020c020b20002802082201200236020c200220013602080c010b200041146a200041106a20021b21040340200421052001220241146a200241106a200228021422011b210420024114411020011b6a28020022010d000b200541003602000b2003450d02024002402000200028021c41027441bc82c080006a2201280200460d0020032802102000460d012003200236021420020d030c040b200120023602002002450d040c020b2003200236021020020d010c020b0240200220002802082204460d002004200236020c200220043602080f0b410041002802d485c08000417e200141037677713602d485c080000f0b20022003360218024020002802102201450d0020022001360210200120023602180b20002802142201450d0020022001360214200120023602180f0b0f0b410041002802d885c08000417e200028021c77713602d885c080000bf00601047f200020016a210202400240200028020422034101710d002003410271450d012000280200220320016a21010240200020036b220041002802e485c08000470d0020022802044103714103470d01410020013602dc85c0800020022002280204417e7136020420002001410172360204200220013602000c020b20002003108b808080000b024002400240024002400240200228020422034102710d00200241002802e885c08000460d02200241002802e485c08000460d03200220034178712203108b808080002000200320016a2201410172360204200020016a2001360200200041002802e485c08000470d01410020013602dc85c080000f0b20022003417e7136020420002001410172360204200020016a20013602000b02402001418002490d00411f210220014180808008490d030c040b0240024041002802d485c08000220241012001410376742203710d00410020022003723602d485c08000200141f8017141cc83c080006a220121020c010b200141f80171220141cc83c080006a2102200141d483c080006a28020021010b200220003602082001200036020c2000200236020c200020013602080f0b410020003602e885c08000410041002802e085c0800020016a22013602e085c0800020002001410172360204200041002802e485c08000470d03410041003602dc85c08000410041003602e485c080000f0b410020003602e485c08000410041002802dc85c0800020016a22013602dc85c0800020002001410172360204200020016a20013602000f0b2001412620014108766722026b76410171200241017472413e7321020b200042003702102000200236021c200241027441bc82c080006a2103024041002802d885c0800041012002742204710d0020032000360200200020033602182000200036020c20002000360208410041002802d885c080002004723602d885c080000f0b024002400240200328020022042802044178712001470d00200421020c010b20014100411920024101766b2002411f461b742103034020042003411d764104716a22052802102202450d02200341017421032002210420022802044178712001470d000b0b20022802082201200036020c20022000360208200041003602182000200236020c200020013602080f0b200541106a2000360200200020043602182000200036020c200020003602080f0b0b0d0020012000108e80808000000b0d0020012000109980808000000b4701017f23808080800041206b2203248080808000200320013602102003200036020c200341013b011c2003200236021820032003410c6a360214200341146a109080808000000b3802017f017e23808080800041106b2201248080808000200029020021022001200036020c20012002370204200141046a109580808000000b0900200041003602000b990101027f23808080800041106b2204248080808000410041002802b882c08000220541016a3602b882c08000024020054100480d000240024041002d00b082c080000d00410041002802ac82c0800041016a3602ac82c0800041002802b482c08000417f4a0d010c020b200441086a200020011180808080008080808000000b410041003a00b082c080002002450d00109380808000000b000b0300000b0e00410041013a008086c08000000b0b002000109680808000000b900101037f23808080800041106b22012480808080000240200028020022022802042203410171450d002002280200210220012003410176360204200120023602002001418180808000200028020822002d000820002d0009109280808000000b20014180808080783602002001200036020c2001418280808000200028020822002d000820002d0009109280808000000b0c00200020012902003703000bc30201047f411f21020240200141808080084f0d002001412620014108766722026b76410171200241017472413e7321020b200042003702102000200236021c200241027441bc82c080006a2103024041002802d885c0800041012002742204710d0020032000360200200020033602182000200036020c20002000360208410041002802d885c080002004723602d885c080000f0b024002400240200328020022042802044178712001470d00200421020c010b20014100411920024101766b2002411f461b742103034020042003411d764104716a22052802102202450d02200341017421032002210420022802044178712001470d000b0b20022802082203200036020c20022000360208200041003602182000200236020c200020033602080f0b200541106a2000360200200020043602182000200036020c200020003602080b0d0020002001109480808000000b940101017f4101210402400240200341aad5aad5004d0d0041002103410421010c010b2003410c6c210302400240024002402001450d0020022001410c6c4104200310898080800021010c010b024020030d00410421010c020b200310858080800021010b20010d00200041043602040c010b20002001360204410021040b410821010b200020016a2003360200200020043602000b02000b5400024002400240024020010d002003450d02024020024109490d0020022003108a8080800021020c020b200310858080800021020c010b200020012002200310898080800021020b2002450d010b20020f0b000b10002000200120022003109c808080000b0bb6020100418080c0000bac022f72757374632f353938303736313665316661323534303732346266626163313464373937366437653461333836302f6c6962726172792f616c6c6f632f7372632f7261775f7665632f6d6f642e7273002f727573742f646570732f646c6d616c6c6f632d302e322e31312f7372632f646c6d616c6c6f632e7273006361706163697479206f766572666c6f7700000000001000500000001c00000005000000617373657274696f6e206661696c65643a207073697a65203e3d2073697a65202b206d696e5f6f766572686561640000510010002a000000b104000009000000617373657274696f6e206661696c65643a207073697a65203c3d2073697a65202b206d61785f6f766572686561640000510010002a000000b70400000d00000003000000030000000400000000470970726f647563657273010c70726f6365737365642d6279020d7769742d636f6d706f6e656e7407302e3236322e30107769742d62696e6467656e2d7275737406302e36332e3006140203000007636f6e74657874030000046a6f6273020401000000060c0100020100066d656d6f727907170370786a0103017340020363747801046a6f6273020004066e03000001002474696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f7265000001000c636162695f7265616c6c6f63000001002e636162695f706f73745f74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f7265080d0100000004030004010005020504bd030061736d0d0001000769047073707970757207036e6f77780667726f75707300066d6f64656c73001464656661756c742d74696d652d6c696d69742d73771067726f75702d67756172616e74656564010d67726f75702d72756e6e696e67011267726f75702d726563656e742d6770752d68020a19010013696d706f72742d747970652d636f6e746578740300030779047077707d7078720b026964050567726f7570010863617465676f72790605636c61737306046770757301056d6f64656c010c74696d652d6c696d69742d73050e636865636b706f696e7461626c65060c7375626d69747465642d617407097175657565642d6174070e61747461696e65642d6770752d73050a45030010696d706f72742d747970652d6a6f62730300080014696d706f72742d747970652d636f6e74657874300300040011696d706f72742d747970652d6a6f6273300300090715026a010701734002036374780a046a6f62730b000c0a16010011696d706f72742d66756e632d73636f7265010d0b16020007636f6e7465787403040000046a6f62730309000715026a010701734002036374780e046a6f62730f00100b0d01000573636f72650100010111056c0100000511696d706f72742d66756e632d73636f7265010013696d706f72742d747970652d636f6e74657874030110696d706f72742d747970652d6a6f6273030214696d706f72742d747970652d636f6e7465787430030111696d706f72742d747970652d6a6f62733003020b2401001e74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e3005010000ea030e636f6d706f6e656e742d6e616d650167000003002474696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f7265010c636162695f7265616c6c6f63022e636162695f706f73745f74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302373636f7265010b00020100066d656d6f7279010900110100046d61696e010900120100046d61696e016d0503001b74696465706f6f6c3a706f6c6963792f747970657340312e302e30012c74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302d7368696d2d696e7374616e6365021e74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e3001090101000573636f726501310303001e74792d74696465706f6f6c3a706f6c6963792f747970657340312e302e300107636f6e7465787402046a6f627301310401002d74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302d7368696d2d636f6d706f6e656e74016d0503001b74696465706f6f6c3a706f6c6963792f747970657340312e302e30012c74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e302d7368696d2d696e7374616e6365021e74696465706f6f6c3a706f6c6963792f7072696f7269747940312e302e30002f0970726f647563657273010c70726f6365737365642d6279010d7769742d636f6d706f6e656e7407302e3236322e30', 1796062862, NULL, NULL);


--
-- Data for Name: projects; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: quotas; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.quotas VALUES (1, 1, 'A100-80G', 'training', 4, NULL, NULL, 100000);
INSERT INTO public.quotas VALUES (2, 2, 'A100-80G', 'training', 4, NULL, 4, NULL);


--
-- Data for Name: refresh_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.refresh_tokens VALUES (1, 1, 'kTXRIqqA7Ozbxb8QIadF', 'b7ff7528d201e5d7d25014ce8112cdb4cb26ad53302b65e641a975a3440f6f5d', 1796062794, 1796667594, 1798654794, NULL, NULL);
INSERT INTO public.refresh_tokens VALUES (2, 2, 'eQH60D4nwO/AvE92umtG', '2a8c1440bda7cebef5a938ef4dbfc878387e1e47db85f7ed87cef5fd869c1555', 1796062794, 1796667594, 1798654794, NULL, NULL);
INSERT INTO public.refresh_tokens VALUES (3, 5, 'hIUya7i8d7srlVSjJ4hp', '65a5c4fecad638f326929ed04d1d87c795ef4ff327c98ee12f2e26e744af72cc', 1796062794, 1796667594, 1798654794, NULL, NULL);
INSERT INTO public.refresh_tokens VALUES (4, 3, 'i8rK853KJabUXfa+sTGR', '31e12c2f691537b2f2f0001fb25368e3dca94e4c6cc413ce2a4cbcf8d7377638', 1796062795, 1796667595, 1798654795, NULL, NULL);
INSERT INTO public.refresh_tokens VALUES (5, 4, '93gxnatnyonpYB7WZulB', '387f879b4e0a922d0d824e5acb260a06c24a22124376f54c0683de68e6f3eac8', 1796062795, 1796667595, 1798654795, NULL, NULL);


--
-- Data for Name: report_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: template_grants; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: templates; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.templates VALUES (1, 1, 'eval-1gpu', 'training', 'experiment', 1, 'A100-80G', 'any', NULL, false, '', 'echo eval', '{}', 'ada', 1796062798, NULL, NULL);


--
-- Data for Name: usage_hours; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: usage_rollup; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.usage_rollup VALUES (1, 1796061600);


--
-- Data for Name: usage_samples; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.usage_samples VALUES (1796061600, 3, 59, 5900, 0);
INSERT INTO public.usage_samples VALUES (1796061600, 4, 2, 200, 0);
INSERT INTO public.usage_samples VALUES (1796061600, 5, 16, 1600, 0);


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.users VALUES (1, 'admin', '$argon2id$v=19$m=19456,t=2,p=1$4d7j/AG82x+tf0xO2mu9cQ$i3lMNIA9ll8olzkylpHmu+yIHhD2rYghpq9vGZQTOnY', 'admin', NULL, 1796062792, NULL);
INSERT INTO public.users VALUES (2, 'grace', '$argon2id$v=19$m=19456,t=2,p=1$L+TfJGalMHQZTo/nDA7Kkg$e17YjUWhpw+qr+LkCJ7RqnJ0HjKgRY8bFeeRAtNJEOU', 'admin', NULL, 1796062793, NULL);
INSERT INTO public.users VALUES (3, 'vision-lead', '$argon2id$v=19$m=19456,t=2,p=1$X1f+uJo1opTQ6XuHqhhRAw$BtrobjW9i2rjmoTaoRf/nKXaJpc13/fJ7XclBFqvfRs', 'manager', 1, 1796062793, NULL);
INSERT INTO public.users VALUES (4, 'speech-lead', '$argon2id$v=19$m=19456,t=2,p=1$oScQLzsPPGQ4/UOVyXhVVw$oyKidBBhKdzbOrQkycINxuOVxWLb0KnRbl94YHL9X8s', 'manager', 2, 1796062793, NULL);
INSERT INTO public.users VALUES (5, 'ada', '$argon2id$v=19$m=19456,t=2,p=1$u4ukk2TJM+4d5DsNvdw/Hw$eshrlBt00uN1dMTBcklxIPR9gqScac2WoLT9eHJ0DBI', 'member', 1, 1796062794, NULL);


--
-- Data for Name: weekly_reports; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.weekly_reports VALUES (1, 0, '2026-W48', 1796062853, '{"week":"2026-W48","group":null,"time_zone":"UTC","starts_at":1795392000,"ends_at":1795996800,"frozen_at":1796062853,"currency":"EUR","totals":{"gpu_hours":0.0,"busy_gpu_hours":0.0,"idle_gpu_hours":0.0,"cost":-0.0,"jobs_started":0,"jobs_finished":0},"usage":[],"days":[{"date":"2026-11-23","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-24","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-25","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-26","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-27","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-28","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-29","training":0.0,"inference":0.0,"pretraining":0.0}],"guarantees":[{"group":"speech","model":"A100-80G","category":"training","guaranteed":4,"guaranteed_gpu_hours":672.0,"used_gpu_hours":0.0,"use_ratio":0.0,"held_avg":0.0,"held_p50":0.0,"held_p95":0.0},{"group":"vision","model":"A100-80G","category":"training","guaranteed":4,"guaranteed_gpu_hours":672.0,"used_gpu_hours":0.0,"use_ratio":0.0,"held_avg":0.0,"held_p50":0.0,"held_p95":0.0}],"waits":[],"wait_reasons":[],"loans":{"lent_gpu_hours":0.0,"borrowed_gpu_hours":0.0,"loans":[]},"interruptions":{"preemptions":0,"idle_reclaims":0,"reclaimed_gpu_hours":0.0},"outcomes":{"succeeded":0,"failed":0,"timed_out":0,"cancelled":0},"budgets":[{"group":"vision","model":"A100-80G","category":"training","month":"2026-11","budget_gpu_hours":100000.0,"spent_gpu_hours":0.0,"forecast_gpu_hours":0.0}],"busiest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"idlest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"previous":null}');
INSERT INTO public.weekly_reports VALUES (2, 1, '2026-W48', 1796062853, '{"week":"2026-W48","group":"vision","time_zone":"UTC","starts_at":1795392000,"ends_at":1795996800,"frozen_at":1796062853,"currency":"EUR","totals":{"gpu_hours":0.0,"busy_gpu_hours":0.0,"idle_gpu_hours":0.0,"cost":-0.0,"jobs_started":0,"jobs_finished":0},"usage":[],"days":[{"date":"2026-11-23","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-24","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-25","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-26","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-27","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-28","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-29","training":0.0,"inference":0.0,"pretraining":0.0}],"guarantees":[{"group":"vision","model":"A100-80G","category":"training","guaranteed":4,"guaranteed_gpu_hours":672.0,"used_gpu_hours":0.0,"use_ratio":0.0,"held_avg":0.0,"held_p50":0.0,"held_p95":0.0}],"waits":[],"wait_reasons":[],"loans":{"lent_gpu_hours":0.0,"borrowed_gpu_hours":0.0,"loans":[]},"interruptions":{"preemptions":0,"idle_reclaims":0,"reclaimed_gpu_hours":0.0},"outcomes":{"succeeded":0,"failed":0,"timed_out":0,"cancelled":0},"budgets":[{"group":"vision","model":"A100-80G","category":"training","month":"2026-11","budget_gpu_hours":100000.0,"spent_gpu_hours":0.0,"forecast_gpu_hours":0.0}],"busiest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"idlest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"previous":null}');
INSERT INTO public.weekly_reports VALUES (3, 2, '2026-W48', 1796062853, '{"week":"2026-W48","group":"speech","time_zone":"UTC","starts_at":1795392000,"ends_at":1795996800,"frozen_at":1796062853,"currency":"EUR","totals":{"gpu_hours":0.0,"busy_gpu_hours":0.0,"idle_gpu_hours":0.0,"cost":-0.0,"jobs_started":0,"jobs_finished":0},"usage":[],"days":[{"date":"2026-11-23","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-24","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-25","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-26","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-27","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-28","training":0.0,"inference":0.0,"pretraining":0.0},{"date":"2026-11-29","training":0.0,"inference":0.0,"pretraining":0.0}],"guarantees":[{"group":"speech","model":"A100-80G","category":"training","guaranteed":4,"guaranteed_gpu_hours":672.0,"used_gpu_hours":0.0,"use_ratio":0.0,"held_avg":0.0,"held_p50":0.0,"held_p95":0.0}],"waits":[],"wait_reasons":[],"loans":{"lent_gpu_hours":0.0,"borrowed_gpu_hours":0.0,"loans":[]},"interruptions":{"preemptions":0,"idle_reclaims":0,"reclaimed_gpu_hours":0.0},"outcomes":{"succeeded":0,"failed":0,"timed_out":0,"cancelled":0},"budgets":[],"busiest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"idlest_hours":[{"local":"2026-11-23 00:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 01:00","gpus_held":0.0,"util_pct":0.0},{"local":"2026-11-23 02:00","gpus_held":0.0,"util_pct":0.0}],"previous":null}');


--
-- Name: alert_deliveries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.alert_deliveries_id_seq', 1, false);


--
-- Name: alerts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.alerts_id_seq', 1, false);


--
-- Name: allocations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.allocations_id_seq', 5, true);


--
-- Name: changes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.changes_id_seq', 2, true);


--
-- Name: events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_id_seq', 26, true);


--
-- Name: groups_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.groups_id_seq', 2, true);


--
-- Name: job_logs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.job_logs_id_seq', 2, true);


--
-- Name: job_waits_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.job_waits_id_seq', 2, true);


--
-- Name: jobs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.jobs_id_seq', 6, true);


--
-- Name: loans_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.loans_id_seq', 1, true);


--
-- Name: node_tokens_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.node_tokens_id_seq', 1, true);


--
-- Name: nodes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.nodes_id_seq', 1, true);


--
-- Name: policy_transitions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.policy_transitions_id_seq', 2, true);


--
-- Name: projects_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.projects_id_seq', 1, false);


--
-- Name: quotas_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.quotas_id_seq', 2, true);


--
-- Name: refresh_tokens_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.refresh_tokens_id_seq', 5, true);


--
-- Name: report_deliveries_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.report_deliveries_id_seq', 1, false);


--
-- Name: templates_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.templates_id_seq', 1, true);


--
-- Name: users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.users_id_seq', 5, true);


--
-- Name: weekly_reports_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.weekly_reports_id_seq', 3, true);


--
-- Name: _sqlx_migrations _sqlx_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public._sqlx_migrations
    ADD CONSTRAINT _sqlx_migrations_pkey PRIMARY KEY (version);


--
-- Name: alert_cursor alert_cursor_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_cursor
    ADD CONSTRAINT alert_cursor_pkey PRIMARY KEY (id);


--
-- Name: alert_deliveries alert_deliveries_alert_id_round_channel_recipient_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_alert_id_round_channel_recipient_key UNIQUE (alert_id, round, channel, recipient);


--
-- Name: alert_deliveries alert_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_pkey PRIMARY KEY (id);


--
-- Name: alert_reads alert_reads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_reads
    ADD CONSTRAINT alert_reads_pkey PRIMARY KEY (alert_id, user_id);


--
-- Name: alert_settings alert_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_settings
    ADD CONSTRAINT alert_settings_pkey PRIMARY KEY (id);


--
-- Name: alerts alerts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts
    ADD CONSTRAINT alerts_pkey PRIMARY KEY (id);


--
-- Name: allocations allocations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocations
    ADD CONSTRAINT allocations_pkey PRIMARY KEY (id);


--
-- Name: changes changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (id);


--
-- Name: class_limits class_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.class_limits
    ADD CONSTRAINT class_limits_pkey PRIMARY KEY (class);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: gpu_prices gpu_prices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.gpu_prices
    ADD CONSTRAINT gpu_prices_pkey PRIMARY KEY (model);


--
-- Name: groups groups_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT groups_name_key UNIQUE (name);


--
-- Name: groups groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.groups
    ADD CONSTRAINT groups_pkey PRIMARY KEY (id);


--
-- Name: job_logs job_logs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs
    ADD CONSTRAINT job_logs_pkey PRIMARY KEY (id);


--
-- Name: job_tags job_tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_tags
    ADD CONSTRAINT job_tags_pkey PRIMARY KEY (job_id, tag);


--
-- Name: job_waits job_waits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_waits
    ADD CONSTRAINT job_waits_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: leader_lease leader_lease_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leader_lease
    ADD CONSTRAINT leader_lease_pkey PRIMARY KEY (id);


--
-- Name: loans loans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loans
    ADD CONSTRAINT loans_pkey PRIMARY KEY (id);


--
-- Name: login_throttle login_throttle_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.login_throttle
    ADD CONSTRAINT login_throttle_pkey PRIMARY KEY (key);


--
-- Name: node_gpus node_gpus_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.node_gpus
    ADD CONSTRAINT node_gpus_pkey PRIMARY KEY (node_id, idx);


--
-- Name: node_tokens node_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.node_tokens
    ADD CONSTRAINT node_tokens_pkey PRIMARY KEY (id);


--
-- Name: node_tokens node_tokens_token_sha256_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.node_tokens
    ADD CONSTRAINT node_tokens_token_sha256_key UNIQUE (token_sha256);


--
-- Name: nodes nodes_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_name_key UNIQUE (name);


--
-- Name: nodes nodes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_pkey PRIMARY KEY (id);


--
-- Name: org_settings org_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_settings
    ADD CONSTRAINT org_settings_pkey PRIMARY KEY (id);


--
-- Name: policy_transitions policy_transitions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_transitions
    ADD CONSTRAINT policy_transitions_pkey PRIMARY KEY (id);


--
-- Name: policy_transitions policy_transitions_sha256_seq_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_transitions
    ADD CONSTRAINT policy_transitions_sha256_seq_key UNIQUE (sha256, seq);


--
-- Name: policy_versions policy_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_versions
    ADD CONSTRAINT policy_versions_pkey PRIMARY KEY (sha256);


--
-- Name: projects projects_group_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_group_id_name_key UNIQUE (group_id, name);


--
-- Name: projects projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);


--
-- Name: quotas quotas_group_id_model_category_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quotas
    ADD CONSTRAINT quotas_group_id_model_category_key UNIQUE (group_id, model, category);


--
-- Name: quotas quotas_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quotas
    ADD CONSTRAINT quotas_pkey PRIMARY KEY (id);


--
-- Name: refresh_tokens refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (id);


--
-- Name: refresh_tokens refresh_tokens_token_sha256_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_token_sha256_key UNIQUE (token_sha256);


--
-- Name: report_deliveries report_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.report_deliveries
    ADD CONSTRAINT report_deliveries_pkey PRIMARY KEY (id);


--
-- Name: template_grants template_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.template_grants
    ADD CONSTRAINT template_grants_pkey PRIMARY KEY (template_id, group_id);


--
-- Name: templates templates_group_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.templates
    ADD CONSTRAINT templates_group_id_name_key UNIQUE (group_id, name);


--
-- Name: templates templates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.templates
    ADD CONSTRAINT templates_pkey PRIMARY KEY (id);


--
-- Name: usage_hours usage_hours_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_hours
    ADD CONSTRAINT usage_hours_pkey PRIMARY KEY (hour, group_id, pool, model, category);


--
-- Name: usage_rollup usage_rollup_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_rollup
    ADD CONSTRAINT usage_rollup_pkey PRIMARY KEY (id);


--
-- Name: usage_samples usage_samples_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_samples
    ADD CONSTRAINT usage_samples_pkey PRIMARY KEY (hour, allocation_id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: users users_username_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_username_key UNIQUE (username);


--
-- Name: weekly_reports weekly_reports_group_id_week_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.weekly_reports
    ADD CONSTRAINT weekly_reports_group_id_week_key UNIQUE (group_id, week);


--
-- Name: weekly_reports weekly_reports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.weekly_reports
    ADD CONSTRAINT weekly_reports_pkey PRIMARY KEY (id);


--
-- Name: alert_deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alert_deliveries_due ON public.alert_deliveries USING btree (delivered_at, next_at);


--
-- Name: alerts_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX alerts_by_group ON public.alerts USING btree (group_id, id);


--
-- Name: alerts_open_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX alerts_open_key ON public.alerts USING btree (dedup_key) WHERE (resolved_at IS NULL);


--
-- Name: allocations_by_end; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX allocations_by_end ON public.allocations USING btree (ended_at, started_at);


--
-- Name: allocations_by_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX allocations_by_job ON public.allocations USING btree (job_id);


--
-- Name: allocations_by_node; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX allocations_by_node ON public.allocations USING btree (node_id, ended_at);


--
-- Name: allocations_by_start; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX allocations_by_start ON public.allocations USING btree (started_at);


--
-- Name: allocations_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX allocations_live ON public.allocations USING btree (ended_at);


--
-- Name: events_by_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_by_job ON public.events USING btree (job_id);


--
-- Name: events_by_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_by_kind ON public.events USING btree (kind, id);


--
-- Name: job_logs_by_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_logs_by_job ON public.job_logs USING btree (job_id);


--
-- Name: job_logs_by_offset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_logs_by_offset ON public.job_logs USING btree (job_id, log_offset);


--
-- Name: job_logs_once; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX job_logs_once ON public.job_logs USING btree (allocation_id, agent_offset);


--
-- Name: job_tags_by_tag; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_tags_by_tag ON public.job_tags USING btree (tag);


--
-- Name: job_waits_by_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_waits_by_job ON public.job_waits USING btree (job_id, since);


--
-- Name: job_waits_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_waits_by_time ON public.job_waits USING btree (since);


--
-- Name: jobs_by_finish; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_finish ON public.jobs USING btree (finished_at);


--
-- Name: jobs_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_group ON public.jobs USING btree (group_id, state);


--
-- Name: jobs_by_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_project ON public.jobs USING btree (project_id, state);


--
-- Name: jobs_by_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_state ON public.jobs USING btree (state);


--
-- Name: jobs_by_submitter; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_submitter ON public.jobs USING btree (submitted_by, state);


--
-- Name: jobs_by_template; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_template ON public.jobs USING btree (template_id);


--
-- Name: jobs_by_template_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_by_template_time ON public.jobs USING btree (template_id, submitted_at);


--
-- Name: loans_by_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX loans_by_state ON public.loans USING btree (state);


--
-- Name: node_tokens_by_node; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX node_tokens_by_node ON public.node_tokens USING btree (node_name);


--
-- Name: nodes_by_model; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nodes_by_model ON public.nodes USING btree (model);


--
-- Name: refresh_tokens_by_family; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX refresh_tokens_by_family ON public.refresh_tokens USING btree (family);


--
-- Name: templates_by_group; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX templates_by_group ON public.templates USING btree (group_id, retired_at);


--
-- Name: alert_deliveries alert_deliveries_alert_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_deliveries
    ADD CONSTRAINT alert_deliveries_alert_id_fkey FOREIGN KEY (alert_id) REFERENCES public.alerts(id);


--
-- Name: alert_reads alert_reads_alert_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_reads
    ADD CONSTRAINT alert_reads_alert_id_fkey FOREIGN KEY (alert_id) REFERENCES public.alerts(id);


--
-- Name: alert_reads alert_reads_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alert_reads
    ADD CONSTRAINT alert_reads_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: alerts alerts_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alerts
    ADD CONSTRAINT alerts_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: allocations allocations_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocations
    ADD CONSTRAINT allocations_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);


--
-- Name: allocations allocations_node_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocations
    ADD CONSTRAINT allocations_node_id_fkey FOREIGN KEY (node_id) REFERENCES public.nodes(id);


--
-- Name: job_logs job_logs_allocation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs
    ADD CONSTRAINT job_logs_allocation_id_fkey FOREIGN KEY (allocation_id) REFERENCES public.allocations(id);


--
-- Name: job_logs job_logs_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_logs
    ADD CONSTRAINT job_logs_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);


--
-- Name: job_tags job_tags_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_tags
    ADD CONSTRAINT job_tags_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);


--
-- Name: job_waits job_waits_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_waits
    ADD CONSTRAINT job_waits_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);


--
-- Name: jobs jobs_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: jobs jobs_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id);


--
-- Name: jobs jobs_submitted_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_submitted_by_fkey FOREIGN KEY (submitted_by) REFERENCES public.users(id);


--
-- Name: jobs jobs_template_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_template_id_fkey FOREIGN KEY (template_id) REFERENCES public.templates(id);


--
-- Name: loans loans_borrower_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loans
    ADD CONSTRAINT loans_borrower_id_fkey FOREIGN KEY (borrower_id) REFERENCES public.groups(id);


--
-- Name: loans loans_lender_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.loans
    ADD CONSTRAINT loans_lender_id_fkey FOREIGN KEY (lender_id) REFERENCES public.groups(id);


--
-- Name: node_gpus node_gpus_node_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.node_gpus
    ADD CONSTRAINT node_gpus_node_id_fkey FOREIGN KEY (node_id) REFERENCES public.nodes(id);


--
-- Name: policy_transitions policy_transitions_sha256_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.policy_transitions
    ADD CONSTRAINT policy_transitions_sha256_fkey FOREIGN KEY (sha256) REFERENCES public.policy_versions(sha256);


--
-- Name: projects projects_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: quotas quotas_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.quotas
    ADD CONSTRAINT quotas_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: refresh_tokens refresh_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.refresh_tokens
    ADD CONSTRAINT refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: report_deliveries report_deliveries_report_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.report_deliveries
    ADD CONSTRAINT report_deliveries_report_id_fkey FOREIGN KEY (report_id) REFERENCES public.weekly_reports(id);


--
-- Name: template_grants template_grants_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.template_grants
    ADD CONSTRAINT template_grants_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: template_grants template_grants_template_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.template_grants
    ADD CONSTRAINT template_grants_template_id_fkey FOREIGN KEY (template_id) REFERENCES public.templates(id);


--
-- Name: templates templates_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.templates
    ADD CONSTRAINT templates_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: usage_hours usage_hours_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_hours
    ADD CONSTRAINT usage_hours_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- Name: usage_samples usage_samples_allocation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_samples
    ADD CONSTRAINT usage_samples_allocation_id_fkey FOREIGN KEY (allocation_id) REFERENCES public.allocations(id);


--
-- Name: users users_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.groups(id);


--
-- PostgreSQL database dump complete
--


