"""Generate a large, realistic memsite store for benchmarks.

Usage::

    python benchmarks/gen_store.py --entries 10000 --out /tmp/bench [--seed 0]
    python benchmarks/gen_store.py --entries 1000 --print-sample 3

This writes ``DIR/.memsite/config.json`` (``{"memory": {}}``) and ``DIR/.memsite/entries/`` with N
entries. Content is 60-400 characters built from varied templates and vocabularies (tools,
services, file paths, commands, numbers; several thousand distinct words), so search and
near-duplicate checks behave as they would on a real store. About 15% of entries supersede an
earlier one (some chains of 3-5, a few superseding two at once), about 10% carry a key (with some
same category+key contradictions), about 3% repeat earlier content exactly, tags come from a pool
of about 300, and timestamps are spread over two years with one entry per second at most.

Output is deterministic for a given ``--seed``. Other benchmark scripts can import
:func:`generate`. Standard library only; files are written with plain ``open``/``write`` (no
fsync), 10k entries take well under a couple of seconds.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

CATEGORIES = ("conventions", "architecture", "operations", "decisions")
CATEGORY_WEIGHTS = (0.30, 0.25, 0.30, 0.15)
START = datetime(2024, 1, 1, tzinfo=UTC)
SPAN_SECONDS = 730 * 24 * 3600
CONTENT_MIN = 60
CONTENT_MAX = 400
P_DUPLICATE = 0.03
P_SUPERSEDE = 0.15
P_KEY_FRESH = 0.095
P_KEY_REUSE = 0.3  # a fresh keyed entry reuses a key of its category: a contradiction
P_MERGE = 0.08  # a superseding entry replaces two entries at once
P_EXTEND_CHAIN = 0.35
MAX_CHAIN = 5
MARKER = ".bench-generated"  # lets generate() overwrite a store it made earlier


def _words(text: str) -> list[str]:
    return text.split()


# --- vocabularies ---------------------------------------------------------------------------------
# Lists are ordered roughly by popularity; picks are Zipf-weighted, so early items recur often and
# the long tail still shows up, like words in a real project memory.

TOOLS = _words("""
pnpm docker kubectl postgres redis typescript node python pytest github-actions terraform helm
grafana prometheus eslint prettier vitest jest playwright ruff mypy uv poetry kafka nginx sentry
datadog argocd go cargo rust webpack vite esbuild turbo nx yarn npm bun deno biome mocha cypress
storybook react nextjs remix svelte vue angular tailwind fastify express nestjs django flask
fastapi celery gunicorn uvicorn sqlalchemy alembic prisma kysely drizzle typeorm knex flyway
liquibase mysql sqlite mongodb elasticsearch opensearch meilisearch clickhouse bigquery snowflake
dbt airflow dagster prefect spark pandas polars numpy pyarrow duckdb rabbitmq nats sqs sns s3 gcs
minio localstack testcontainers wiremock msw k6 locust envoy traefik istio linkerd loki tempo
jaeger opentelemetry pagerduty opsgenie vault sops cert-manager external-dns karpenter keda
pulumi ansible packer consul nomad jenkins circleci buildkite gitlab-ci renovate dependabot husky
lint-staged commitlint changesets semantic-release sonarqube snyk trivy hadolint shellcheck make
just bazel nix direnv asdf mise volta nvm pyenv graphql apollo trpc grpc protobuf openapi zod
pydantic marshmallow black isort flake8 pylint bandit hypothesis tox nox pre-commit gradle maven
kotlin spring hibernate junit mockito gin echo cobra viper zap logrus tokio axum serde clippy
bullmq sidekiq resque memcached haproxy cloudflare fastly vercel netlify fly heroku
""")

NOUNS = _words("""
order payment invoice billing refund cart checkout catalog inventory pricing tax shipping
fulfillment customer account auth session identity notification email search recommendation
analytics reporting audit fraud risk onboarding subscription plan coupon promotion loyalty review
rating media upload thumbnail export import sync webhook gateway scheduler merchant vendor
supplier warehouse shipment tracking label return exchange wallet balance transfer settlement
reconciliation dispute chargeback currency locale translation content asset cache config feature
experiment metric event stream queue job batch report dashboard alert incident deployment release
build artifact image cluster namespace certificate domain route ingress proxy tenant organization
team member role permission policy user profile address preference consent privacy retention
archive backup snapshot replica partition shard index schema migration ledger receipt statement
quote contract product variant sku bundle category discount voucher gift basket checkout-flow
delivery courier pickup slot store region country payout bank card token-vault risk-score
message chat ticket support sla escalation feedback survey campaign segment cohort funnel
attribution click impression banner layout theme font icon asset-pipeline sitemap crawler
robot scraper parser importer exporter indexer ranking embedding vector model training dataset
label-set annotation pipeline worker consumer producer topic payload schema-registry contract-test
""")

VERBS = _words("""
get set create update delete fetch load save sync validate parse render build compute resolve
handle process enqueue publish subscribe retry flush refresh encode decode serialize normalize
reconcile schedule dispatch notify authorize capture settle export import migrate index rebuild
warm evict expire rotate archive purge merge split transform aggregate compact dedupe enrich
score rank match lookup register unregister apply revert approve reject sign verify hash map
filter sort paginate throttle batch stream collect emit track
""")

ADJECTIVES = _words("""
legacy new internal public async batch nightly hourly streaming cached partial full incremental
primary secondary regional global shared dedicated default fallback temporary canary read-only
write-heavy idempotent stateless stateful versioned deprecated experimental optional required
eventual strict lenient soft hard manual automatic scheduled on-demand multi-tenant per-tenant
""")

SERVICE_SUFFIXES = _words("api service worker svc gateway consumer indexer sync cron proxy web bff")
STEMS = _words("""
handler client config schema routes model service repository utils index worker types
fixtures factory adapter controller middleware validators serializers mapper store queries
commands events listener scheduler retry policy limits
""")
TEAMS = _words("""
platform payments growth data infra sre mobile web search identity billing risk core devex
security checkout logistics analytics ml support-tools catalog fulfillment
""")
PROJECTS = _words("PLAT PAY GRO DATA INFRA SRE MOB WEB SRCH ID BILL RISK CORE DX SEC CHK LOG")
ENV_SUFFIXES = _words("""
URL HOST PORT TIMEOUT_MS POOL_SIZE ENABLED LOG_LEVEL REGION BUCKET CONCURRENCY BATCH_SIZE
MAX_RETRIES CACHE_TTL QUEUE_NAME ENDPOINT SAMPLE_RATE WORKERS
""")
ENVIRONMENTS = _words("staging prod dev qa sandbox preview eu-prod us-prod load-test")
REGIONS = _words("eu-west-1 us-east-1 us-west-2 eu-central-1 ap-southeast-1 ap-northeast-1")
DAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
MONTHS = _words("January February March April May June July August September October November")
RUNTIMES = _words("""
Node-18 Node-20 Node-22 Python-3.10 Python-3.11 Python-3.12 Go-1.21 Go-1.22 Java-17 Java-21
Rust-1.79 Ruby-3.3 Kotlin-2.0 .NET-8
""")
ERRORS = _words("""
ECONNREFUSED ETIMEDOUT ECONNRESET OOMKilled CrashLoopBackOff ImagePullBackOff DeadlineExceeded
SQLSTATE-40001 SQLSTATE-53300 SQLSTATE-23505 ERR_PNPM_OUTDATED_LOCKFILE ENOSPC EADDRINUSE
MaxRetriesPerRequestError
""")
PEOPLE = _words("""
priya.nair jonas.weber maria.garcia tom.okafor li.wei sara.johansson diego.ramos
anna.kowalski kenji.tanaka fatima.haddad lucas.martin noor.ali
""")
AGENTS = ("claude-code", "codex", "copilot", "cursor")
TOPIC_TAGS = _words("""
testing ci deploy flaky-tests security performance incident runbook onboarding docs migrations
observability logging monitoring alerting database caching queue api frontend backend infra
tooling dependencies build release config env local-dev networking storage auth data pipeline
oncall cost compliance accessibility i18n mobile adr
""")
KEY_ASPECTS = _words("""
version timeout owner runner format retries region port pool-size schedule strategy provider
library style cache-ttl command location limit policy
""")
REASON_CLAUSES = (
    "it cut p99 latency by {pct}%",
    "the team already operates it",
    "the license cost of {tool2} was too high",
    "it supports {noun} out of the box",
    "{tool2} had no active maintainers",
    "it halved CI time for {svc}",
    "it makes {noun} code easier to test",
    "on-call load dropped after incident {ticket}",
    "it scales to {big} {noun} events per second",
    "the migration cost is low and reversible",
    "{team} can own it end to end",
    "it removes a dependency on {tool2}",
)

TEMPLATES: dict[str, tuple[str, ...]] = {
    "conventions": (
        "Always use {tool} for {noun} work in `{svc}`; never {tool2}.",
        "Run `{devcmd}` before pushing changes to `{path}`; CI fails otherwise.",
        "Name {noun} handlers like `{func}` and keep them in `{path}`.",
        "Tests for {svc} live under `{path}` and run with `{devcmd}`.",
        "Format {runtime} code with {tool}; its config is in `{path}`.",
        "Commit messages in {svc} use the `{noun}(scope): summary` style and link the ticket "
        "({ticket}) in the body.",
        "Do not call `{func}` directly from request handlers; go through `{func2}` so {noun} "
        "limits apply.",
        "Prefer {tool} over {tool2} for new {noun} code in `{svc}`.",
        "Every new environment variable such as `{env}` must be documented in `{path}`.",
        "Public functions in `{path}` need docstrings and type hints; `{devcmd}` checks this.",
        "Use {adj} UUIDs for {noun} ids in URLs, never the numeric `{col}`.",
        "Log with structured fields (`{col}`, `{col2}`) instead of string formatting in {svc}.",
        "Keep {noun} migrations backwards compatible for one release; drop columns like `{col}` "
        "only after {n} days.",
        "Snapshot tests in `{path}` are updated with `{devcmd}`, never by hand.",
        "New endpoints in {svc} must be added to the OpenAPI spec at `{path}`.",
        "Store {noun} timestamps in UTC; convert to local time only in the UI.",
        "Import order is enforced by {tool}; run `{devcmd}` to fix it.",
        "The {team} team owns `{path}`; ask them to review changes to {noun} logic.",
        "Branch names follow `{noun}/{ticket}-short-description`.",
        "Feature flags for {noun} are named `{noun}-{noun2}-enabled` and removed after rollout.",
        "Build {noun} test fixtures with `{func}` from `{path}` instead of raw SQL.",
        "Calls to {svc} retry with exponential backoff starting at {ms} ms, at most {n} attempts.",
        "{svc} reads its configuration once at startup from `{path}`; do not read `{env}` at "
        "request time.",
        "Generated files under `{path}` are never edited by hand; regenerate them with `{devcmd}`.",
        "Pin {runtime} dependencies in `{path}` and bump them only through {tool} PRs.",
    ),
    "architecture": (
        "`{svc}` owns the `{table}` table; other services read it only through `{func}`.",
        "{svc} publishes `{noun}.{verb}` events to `{queue}` on {tool}; consumers must be "
        "idempotent.",
        "The `{table}` table is partitioned by month on `{col}`; queries must filter on it.",
        "{svc} caches {noun} lookups in {tool} for {n} minutes under keys `{noun}:{col}`.",
        "Requests from {svc} to {svc2} go through the internal gateway on port {port}.",
        "{svc} is a {runtime} service running {n} replicas; it depends on {tool} and {tool2}.",
        "`{func}` in `{path}` is the single entry point for {noun} state changes.",
        "The {noun} pipeline reads from {tool}, transforms with {tool2} and writes to `{table}`.",
        "{svc} stores uploaded {noun} files in the `{bucket}` bucket with a {n}-day lifecycle "
        "rule.",
        "Search over {noun} data is served by {tool}; `{svc}` rebuilds the index nightly.",
        "`{table}.{col}` references `{table2}.id` with ON DELETE CASCADE.",
        "{svc} is the only writer to `{queue}`; {svc2} and {svc3} consume it with separate "
        "consumer groups.",
        "Traffic between {svc} and {svc2} uses mTLS with certificates issued by {tool}.",
        "{noun} aggregates are computed by a {tool} job every {n} minutes into `{table}`.",
        "The {adj} {noun} API in {svc} is deprecated; new clients use `{path}`.",
        "{svc} rate-limits in {tool} with a budget of {big} requests per minute per tenant.",
        "`{svc}` uses the outbox pattern: rows in `{table}` are relayed to {tool} by `{func}`.",
        "{svc} serves gRPC on port {port} and HTTP on port {port2}.",
        "The {noun} domain model lives in `{path}`; persistence adapters are in `{path2}`.",
        "Reads for {noun} reports go to the {tool} replica; writes only go to the primary.",
    ),
    "operations": (
        "Deploy {svc} with `{deploycmd}`; the rollout takes about {n} minutes.",
        "If {svc} returns 503 after a deploy, restart it with "
        "`kubectl -n {ns} rollout restart deploy/{svc}`.",
        "`{path}` is flaky (about {pct}% of runs fail) because of {noun} timing; rerun once "
        "before investigating ({ticket}).",
        "`{env}` sets the {noun} timeout in {svc}: default {ms} ms, {envname} uses {ms2} ms.",
        "Runbook for {noun} incidents: {url}",
        "{svc} alerts when p99 latency stays above {ms} ms for {n} minutes; it pages "
        "#{team}-oncall.",
        "To reprocess failed {noun} jobs run `{opscmd}` from a {envname} shell.",
        "Backups of `{table}` run every {n} hours; restore with `{opscmd}`.",
        "The {envname} database is reset every {day}; don't keep test data there.",
        "{svc} needs `{env}` and `{env2}`; local values are in `{path}`.",
        "Disk on the {tool} nodes fills up when vacuum on `{table}` lags; check with `{opscmd}`.",
        "Incident {ticket}: {svc} ran out of connections ({big} open) after the {tool} "
        "upgrade; the pool size is now {n}.",
        "Access to {envname} is granted by the {team} team; log in with `{opscmd}`.",
        "The CI job `{noun}-{verb}` takes about {n} minutes; its cache is keyed on `{path}`.",
        "Certificates for {svc} are renewed by {tool} {n} days before expiry.",
        "The nightly {noun} export starts at {hour} UTC and must finish before {hour2} UTC.",
        "Scale {svc} with `{opscmd}` during {noun} peaks; autoscaling stops at {n} pods.",
        "`{error}` from {svc} usually means {tool} is unreachable; check `{opscmd}`.",
        "Dashboards for {svc} are in {tool} under `{team}/{noun}`.",
        "Flag `{noun}-{noun2}-enabled` is at {pct}% in {envname}; turn it off if the error "
        "rate rises.",
        "Clear the {noun} cache with `{opscmd}` after editing `{table}` by hand.",
        "Migrations for {svc} run as a pre-deploy job; if `{func}` times out, run `{opscmd}` "
        "by hand.",
    ),
    "decisions": (
        "We chose {tool} over {tool2} for {noun} because {because}.",
        "ADR-{adr}: {svc} moves from {tool2} to {tool}; {because}.",
        "Decision: {noun} data is kept for {n} days, then archived to `{bucket}`.",
        "We will not support {tool2} for {noun}: {because}.",
        "ADR-{adr}: one shared {noun} service instead of per-team {noun2} services, because "
        "{because}.",
        "Decision: {svc} does {adj} {noun} writes, because {because}.",
        "We run {tool} self-hosted instead of the managed offering; {because}.",
        "Decision: {runtime} is the default for new {noun} services, because {because}.",
        "ADR-{adr}: {noun} ids are UUIDv7 instead of serial integers; {because}.",
        "Decision ({ticket}): {svc} gets its own database to isolate {noun} load; {because}.",
        "ADR-{adr}: {noun} events go through {tool} rather than {tool2}; {because}.",
        "Decision: {svc} keeps {noun} state in {tool}, not in {tool2}, because {because}.",
    ),
}
EXTRAS = (
    "Tracked in {ticket}.",
    "See `{path}`.",
    "Owner: the {team} team.",
    "Confirmed by {person} in PR #{pr}.",
    "Applies to {envname} and {envname2}.",
    "Introduced in {svc} {version}.",
    "Details: {url}",
    "This also affects `{svc2}`.",
    "Check the output of `{cmd}` if unsure.",
    "Since {version}, `{env}` is required.",
    "p95 was {ms} ms after the change.",
    "Ask in #{team} before changing this.",
    "Last verified in {month} {year}.",
    "Related: `{func}` in `{path2}`.",
    "The {envname} value of `{env}` differs, see `{path}`.",
    "Measured on {n} {noun} batches of {big} rows.",
)
REASONS = (
    "{tool2} was replaced by {tool} in PR #{pr}.",
    "The previous note was wrong about {noun}; verified in {envname}.",
    "Changed after incident {ticket}.",
    "{svc} was migrated; the old instructions no longer apply.",
    "The config moved to `{path}` in {version}.",
    "Decision in {ticket} reversed the earlier approach.",
    "Values changed after load testing at {big} requests per second.",
    "Outdated since the {noun} rewrite in {month} {year}.",
)
MERGE_REASON = "Merged two overlapping notes about {noun} into one up-to-date fact."

# --- picking --------------------------------------------------------------------------------------


class Zipf:
    """Pick items with weight 1/(rank+1)**s; bisect on cumulative weights (fast)."""

    def __init__(self, items: Sequence[str], s: float = 0.9) -> None:
        self.items = list(items)
        self.cum = list(itertools.accumulate(1.0 / (i + 1) ** s for i in range(len(self.items))))
        self.total = self.cum[-1]

    def __call__(self, rng: random.Random) -> str:
        return self.items[bisect.bisect(self.cum, rng.random() * self.total)]


def _uniq(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


SERVICES = [f"{n}-{s}" for n in NOUNS[:90] for s in SERVICE_SUFFIXES]
random.Random(7).shuffle(SERVICES)
TAG_POOL = _uniq(
    TOPIC_TAGS
    + [t for t in TOOLS if re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,63}", t)][:150]
    + NOUNS[:140]
)[:300]
TAG_SET = frozenset(TAG_POOL)

_tool = Zipf(TOOLS)
_noun = Zipf(NOUNS, 0.8)
_verb = Zipf(VERBS, 0.7)
_adj = Zipf(ADJECTIVES, 0.7)
_service = Zipf(SERVICES, 0.7)
_stem = Zipf(STEMS, 0.7)
_team = Zipf(TEAMS)
_project = Zipf(PROJECTS)
_env_suffix = Zipf(ENV_SUFFIXES, 0.6)
_environment = Zipf(ENVIRONMENTS, 1.1)
_runtime = Zipf(RUNTIMES, 0.8)
_error = Zipf(ERRORS, 0.8)
_person = Zipf(PEOPLE, 0.7)
_tag = Zipf(TAG_POOL, 0.9)
_aspect = Zipf(KEY_ASPECTS, 0.7)


def _table(r: random.Random) -> str:
    if r.random() < 0.6:
        return _noun(r).replace("-", "_") + "s"
    return f"{_noun(r)}_{_noun(r)}s".replace("-", "_")


TIME_COLUMNS = _words(
    "created_at updated_at deleted_at processed_at expires_at settled_at synced_at archived_at"
)


def _column(r: random.Random) -> str:
    k = r.random()
    if k < 0.25:
        return r.choice(TIME_COLUMNS)
    if k < 0.3:
        return "tenant_id"
    suffix = r.choice(("_id", "_id", "_status", "_count", "_ref", "_version"))
    return _noun(r).replace("-", "_") + suffix


def _func(r: random.Random) -> str:
    noun = "".join(part.capitalize() for part in _noun(r).split("-"))
    return f"{_verb(r)}{noun}" + ("" if r.random() < 0.7 else r.choice(("Async", "Batch", "V2")))


def _path(r: random.Random) -> str:
    k = r.random()
    if k < 0.3:
        return f"apps/{_service(r)}/src/{_noun(r)}/{_stem(r)}.ts"
    if k < 0.5:
        return f"services/{_service(r)}/{_noun(r).replace('-', '_')}/{_stem(r)}.py"
    if k < 0.62:
        return f"internal/{_noun(r)}/{_stem(r)}.go"
    if k < 0.72:
        return f"packages/{_noun(r)}/src/{_stem(r)}.ts"
    if k < 0.8:
        return f"deploy/{_environment(r)}/{_service(r)}.yaml"
    if k < 0.87:
        return f".github/workflows/{_noun(r)}-{_verb(r)}.yml"
    if k < 0.93:
        return f"tests/{_noun(r)}/test_{_verb(r)}_{_stem(r)}.py"
    return f"migrations/2025{r.randint(1, 12):02d}{r.randint(1, 28):02d}_{_verb(r)}_{_table(r)}.sql"


def _script(r: random.Random) -> str:
    return r.choice(("test", "build", "lint", "typecheck", "check", "test:int", "gen", "e2e"))


DEV_COMMANDS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"pnpm --filter @acme/{_noun(r)} {_script(r)}",
    lambda r: f"pnpm {_script(r)}",
    lambda r: f"make {_script(r).replace(':', '-')}-{_noun(r)}",
    lambda r: f"uv run pytest tests/{_noun(r)} -k {_verb(r)}",
    lambda r: f"uv run ruff check services/{_service(r)}",
    lambda r: f"go test ./internal/{_noun(r)}/...",
    lambda r: f"cargo test -p {_noun(r)}-core",
    lambda r: f"npx playwright test e2e/{_noun(r)}.spec.ts",
    lambda r: f"pnpm --filter @acme/{_noun(r)} {_script(r)} -- --update",
)
DEPLOY_COMMANDS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"helm upgrade --install {_service(r)} charts/app -f values/{_environment(r)}.yaml",
    lambda r: f"argocd app sync {_service(r)}-{_environment(r)}",
    lambda r: f"make deploy-{_service(r)} ENV={_environment(r)}",
    lambda r: f"./scripts/deploy.sh {_service(r)} --env {_environment(r)}",
    lambda r: f"kubectl -n {_environment(r)} apply -k deploy/{_service(r)}",
)
OPS_COMMANDS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"kubectl -n {_environment(r)} get pods -l app={_service(r)}",
    lambda r: (
        f"kubectl -n {_environment(r)} scale deploy/{_service(r)} --replicas={r.randint(2, 40)}"
    ),
    lambda r: f"kubectl -n {_environment(r)} logs deploy/{_service(r)} --since=1h",
    lambda r: f"kubectl -n {_environment(r)} rollout restart deploy/{_service(r)}",
    lambda r: f"psql -c 'select count(*) from {_table(r)}'",
    lambda r: f"redis-cli --scan --pattern '{_noun(r)}:*'",
    lambda r: f"./scripts/{_verb(r)}-{_noun(r)}.sh --env {_environment(r)}",
    lambda r: f"terraform plan -target=module.{_noun(r).replace('-', '_')}",
    lambda r: f"docker compose up -d {r.choice(('postgres', 'redis', 'kafka', 'minio'))}",
    lambda r: f"make {_verb(r)}-{_noun(r)} ENV={_environment(r)}",
)


def _dev_cmd(r: random.Random) -> str:
    return r.choice(DEV_COMMANDS)(r)


def _deploy_cmd(r: random.Random) -> str:
    return r.choice(DEPLOY_COMMANDS)(r)


def _ops_cmd(r: random.Random) -> str:
    return r.choice(OPS_COMMANDS)(r)


def _cmd(r: random.Random) -> str:
    return _dev_cmd(r) if r.random() < 0.5 else _ops_cmd(r)


def _env(r: random.Random) -> str:
    return f"{_noun(r).upper().replace('-', '_')}_{_env_suffix(r)}"


def _url(r: random.Random) -> str:
    host = r.choice(("wiki.acme.example", "runbooks.acme.example", "docs.acme.example"))
    return f"https://{host}/{_team(r)}/{_noun(r)}-{_verb(r)}"


def _because(r: random.Random) -> str:
    return _fill_template(_parse(r.choice(REASON_CLAUSES)), r, {})


FIELDS: dict[str, Callable[[random.Random], str]] = {
    "tool": _tool,
    "noun": _noun,
    "verb": _verb,
    "adj": _adj,
    "svc": _service,
    "team": _team,
    "person": _person,
    "runtime": lambda r: _runtime(r).replace("-", " "),
    "error": _error,
    "envname": _environment,
    "ns": _environment,
    "table": _table,
    "col": _column,
    "func": _func,
    "path": _path,
    "cmd": _cmd,
    "devcmd": _dev_cmd,
    "deploycmd": _deploy_cmd,
    "opscmd": _ops_cmd,
    "env": _env,
    "url": _url,
    "because": _because,
    "queue": lambda r: f"{_noun(r)}-{r.choice(('events', 'jobs', 'commands', 'dlq', 'outbox'))}",
    "bucket": lambda r: f"acme-{_noun(r)}-{r.choice(('exports', 'uploads', 'archive', 'backups'))}",
    "ticket": lambda r: f"{_project(r)}-{r.randint(10, 4999)}",
    "pr": lambda r: str(r.randint(100, 9999)),
    "adr": lambda r: f"{r.randint(1, 140):03d}",
    "n": lambda r: str(r.choice((2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 45, 60, 90))),
    "big": lambda r: str(r.choice((200, 500, 1000, 2500, 5000, 10000, 50000, 120000))),
    "ms": lambda r: str(r.choice((50, 100, 150, 250, 300, 500, 800, 1000, 1500, 2000, 5000))),
    "pct": lambda r: str(r.choice((1, 2, 5, 10, 15, 20, 25, 30, 40, 50))),
    "port": lambda r: str(r.choice((3000, 4000, 5432, 6379, 8000, 8080, 8443, 9000, 9090, 50051))),
    "version": lambda r: f"v{r.randint(1, 9)}.{r.randint(0, 30)}",
    "hour": lambda r: f"{r.randint(0, 23):02d}:{r.choice(('00', '15', '30', '45'))}",
    "day": lambda r: r.choice(DAYS),
    "month": lambda r: r.choice(MONTHS),
    "year": lambda r: r.choice(("2024", "2025")),
    "region": lambda r: r.choice(REGIONS),
}

_FIELD_RE = re.compile(r"\{([a-z]+[0-9]?)\}")
Parsed = tuple[str, ...]  # literal, field, literal, field, ..., literal


def _parse(template: str) -> Parsed:
    parts = tuple(_FIELD_RE.split(template))
    for name in parts[1::2]:
        if name.rstrip("0123456789") not in FIELDS:
            raise KeyError(f"unknown template field {name!r} in {template!r}")
    return parts


def _fill_template(parts: Parsed, r: random.Random, values: dict[str, str]) -> str:
    """Fill a parsed template; ``values`` is read first and receives the new draws."""
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        name = parts[i]
        value = values.get(name)
        if value is None:
            value = values[name] = FIELDS[name.rstrip("0123456789")](r)
        out.append(value)
        out.append(parts[i + 1])
    return "".join(out)


PARSED_TEMPLATES = {cat: tuple(_parse(t) for t in ts) for cat, ts in TEMPLATES.items()}
PARSED_EXTRAS = tuple(_parse(t) for t in EXTRAS)
PARSED_REASONS = tuple(_parse(t) for t in REASONS)
PARSED_MERGE_REASON = _parse(MERGE_REASON)

# --- generation -----------------------------------------------------------------------------------


class _Active:
    """Set of entry indexes with O(1) add, remove and random choice."""

    def __init__(self) -> None:
        self.items: list[int] = []
        self.pos: dict[int, int] = {}

    def add(self, i: int) -> None:
        self.pos[i] = len(self.items)
        self.items.append(i)

    def remove(self, i: int) -> None:
        at = self.pos.pop(i)
        last = self.items.pop()
        if last != i:
            self.items[at] = last
            self.pos[last] = at

    def __contains__(self, i: object) -> bool:
        return i in self.pos

    def choice(self, r: random.Random) -> int:
        return self.items[r.randrange(len(self.items))]


def _content(r: random.Random, parsed: Parsed, values: dict[str, str]) -> str:
    """Main sentence plus extra sentences until a drawn target length; 60..400 characters."""
    for _ in range(20):
        text = _fill_template(parsed, r, values)
        if len(text) <= CONTENT_MAX:
            break
        values.clear()
    target = int(r.triangular(CONTENT_MIN, CONTENT_MAX, 130))
    used: set[int] = set()
    tries = 0
    while (len(text) < target or len(text) < CONTENT_MIN) and tries < 12:
        tries += 1
        pick = r.randrange(len(PARSED_EXTRAS))
        if pick in used:
            continue
        extra = _fill_template(PARSED_EXTRAS[pick], r, {})
        if len(text) + 1 + len(extra) <= CONTENT_MAX:
            text = f"{text} {extra}"
            used.add(pick)
    while len(text) < CONTENT_MIN:  # practically never: pad with short, safe sentences
        text += f" Tracked in {FIELDS['ticket'](r)}."
    return text[:CONTENT_MAX] if len(text) > CONTENT_MAX else text


def _tags(r: random.Random, values: dict[str, str]) -> list[str]:
    k = r.choices((0, 1, 2, 3, 4), weights=(4, 12, 40, 32, 12))[0]
    related = [v for n, v in values.items() if n.startswith(("tool", "noun")) and v in TAG_SET]
    tags = _uniq(related)[: min(2, k)]
    while len(tags) < k:
        tag = _tag(r)
        if tag not in tags:
            tags.append(tag)
    return tags


def _created(second: int, millis: int) -> str:
    moment = START + timedelta(seconds=second)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"


def file_name(obj: dict[str, Any]) -> str:
    created: str = obj["created"]
    return created[:19].replace(":", "-") + f"Z-{obj['id'][:8]}.json"


def build_entries(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """The N entry objects (canonical key order), oldest first. Deterministic per seed."""
    if n < 0:
        raise ValueError("n must be >= 0")
    if n > SPAN_SECONDS:
        raise ValueError(f"at most {SPAN_SECONDS} entries (one per second over two years)")
    r = random.Random(seed)
    seconds = sorted(r.sample(range(SPAN_SECONDS), n))
    entries: list[dict[str, Any]] = []
    fills: list[dict[str, str]] = []
    templates: list[Parsed] = []
    chain: list[int] = []
    active = {cat: _Active() for cat in CATEGORIES}
    heads: list[int] = []  # superseding entries: candidates to extend into longer chains
    keys_by_cat: dict[str, list[str]] = {cat: [] for cat in CATEGORIES}
    agent_pool = list(AGENTS) + PEOPLE
    agent_weights = [30, 20, 15, 15] + [20 / len(PEOPLE)] * len(PEOPLE)

    def pick_old(cat: str) -> int | None:
        pool = active[cat]
        if not pool.items:
            return None
        if heads and r.random() < P_EXTEND_CHAIN:
            for _ in range(6):
                j = heads[r.randrange(len(heads))]
                if j in active[entries[j]["category"]] and chain[j] < MAX_CHAIN:
                    return j
        for _ in range(6):
            j = pool.choice(r)
            if chain[j] < MAX_CHAIN:
                return j
        return None

    for i in range(n):
        eid = str(uuid.UUID(int=r.getrandbits(128), version=4))
        created = _created(seconds[i], r.randrange(1000))
        agent = r.choices(agent_pool, weights=agent_weights)[0]
        confidence = r.choices(("high", "medium", "low"), weights=(60, 30, 10))[0]
        roll = r.random()
        category = r.choices(CATEGORIES, weights=CATEGORY_WEIGHTS)[0]
        olds: list[int] = []
        key: str | None = None
        reason: str | None = None
        if roll < P_DUPLICATE and entries:
            j = r.randrange(len(entries))
            src = entries[j]
            category, content, tags = src["category"], src["content"], list(src["tags"])
            values, parsed = dict(fills[j]), templates[j]
        elif roll < P_DUPLICATE + P_SUPERSEDE and i >= 10:
            first = pick_old(category)
            if first is None:
                first = pick_old(r.choice(CATEGORIES))
            if first is not None:
                category = entries[first]["category"]
                olds.append(first)
                if r.random() < P_MERGE:
                    second = active[category].choice(r)
                    if second != first and chain[second] < MAX_CHAIN:
                        olds.append(second)
            if olds:
                old = entries[olds[0]]
                parsed = templates[olds[0]]
                # Keep about half of the old fills: an update talks about the same subject.
                values = {k: v for k, v in fills[olds[0]].items() if r.random() < 0.5}
                content = _content(r, parsed, values)
                if r.random() < 0.2 and len(content) + 8 <= CONTENT_MAX:
                    content = "Update: " + content
                tags = list(old["tags"]) if r.random() < 0.8 else _tags(r, values)
                key = old.get("key") or (_key(r, values) if r.random() < 0.05 else None)
                reason_parts = PARSED_MERGE_REASON if len(olds) > 1 else r.choice(PARSED_REASONS)
                reason = _fill_template(reason_parts, r, dict(values))
            else:
                parsed = r.choice(PARSED_TEMPLATES[category])
                values = {}
                content = _content(r, parsed, values)
                tags = _tags(r, values)
        else:
            parsed = r.choice(PARSED_TEMPLATES[category])
            values = {}
            content = _content(r, parsed, values)
            tags = _tags(r, values)
            if r.random() < P_KEY_FRESH:
                used = keys_by_cat[category]
                key = r.choice(used) if used and r.random() < P_KEY_REUSE else _key(r, values)
        sup_ids = [entries[j]["id"] for j in olds]
        obj: dict[str, Any] = {
            "id": eid,
            "category": category,
            "content": content,
            "created": created,
            "agent": agent,
            "tags": tags,
            "supersedes": (sup_ids[0] if len(sup_ids) == 1 else sup_ids) if sup_ids else None,
            "confidence": confidence,
        }
        if key is not None:
            obj["key"] = key
            keys_by_cat[category].append(key)
        if reason is not None:
            obj["reason"] = reason
        entries.append(obj)
        fills.append(values)
        templates.append(parsed)
        chain.append(1 + max((chain[j] for j in olds), default=0))
        for j in olds:
            active[entries[j]["category"]].remove(j)
        active[category].add(i)
        if olds:
            heads.append(i)
    return entries


def _key(r: random.Random, values: dict[str, str]) -> str:
    """A subject key such as ``invoice-timeout``, about a noun or service of the content."""
    subject = values.get("noun") or values.get("svc") or values.get("tool") or _noun(r)
    if r.random() < 0.3:
        subject = _noun(r)
    return f"{subject}-{_aspect(r)}"


def write_store(entries: Sequence[dict[str, Any]], root: Path, *, force: bool = False) -> Path:
    """Write ``root/.memsite/`` with ``config.json`` and the entries; returns the .memsite path.

    An existing non-empty ``entries/`` is replaced only if this script made it (marker file) or
    ``force`` is set, so a real project memory is never wiped by mistake.
    """
    store = root / ".memsite"
    entries_dir = store / "entries"
    if entries_dir.exists():
        if any(entries_dir.iterdir()) and not (force or (store / MARKER).exists()):
            raise FileExistsError(
                f"{entries_dir} already holds entries not made by gen_store.py; "
                "choose another --out or pass --force"
            )
        shutil.rmtree(entries_dir)
    entries_dir.mkdir(parents=True)
    (store / MARKER).write_text("made by benchmarks/gen_store.py\n", encoding="utf-8")
    (store / "config.json").write_text(
        json.dumps({"memory": {}}, indent=2) + "\n", encoding="utf-8", newline="\n"
    )
    dumps = json.dumps
    for obj in entries:
        with open(entries_dir / file_name(obj), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(dumps(obj, indent=2, ensure_ascii=False) + "\n")
    return store


def git(cwd: Path, *args: str) -> None:
    """Run git in ``cwd`` as the benchmarks' committer (failing loudly if it fails)."""
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def generate(n: int, root: Path, seed: int = 0, *, force: bool = False) -> Path:
    """Create ``root/.memsite/`` with ``n`` generated entries; returns the .memsite path."""
    return write_store(build_entries(n, seed), Path(root), force=force)


def pick_samples(entries: Sequence[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """Up to k varied entries: one superseding, one keyed, then evenly spaced ones."""
    chosen: list[int] = []
    for test in (lambda o: o["supersedes"], lambda o: "key" in o and not o["supersedes"]):
        found = next((i for i, o in enumerate(entries) if test(o)), None)
        if found is not None and len(chosen) < k:
            chosen.append(found)
    step = max(1, len(entries) // (k + 1))
    for i in range(step, len(entries), step):
        if len(chosen) >= k:
            break
        if i not in chosen:
            chosen.append(i)
    return [entries[i] for i in sorted(chosen)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=1000, help="number of entries (1000)")
    parser.add_argument("--out", type=Path, help="directory that receives .memsite/")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument(
        "--print-sample", type=int, default=0, metavar="K", help="print K generated entries"
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing entries/ not made by this script"
    )
    args = parser.parse_args(argv)
    if args.out is None and not args.print_sample:
        parser.error("give --out DIR (and/or --print-sample K)")
    if args.entries < 0:
        parser.error("--entries must be >= 0")
    started = time.perf_counter()
    entries = build_entries(args.entries, args.seed)
    if args.out is not None:
        try:
            store = write_store(entries, args.out, force=args.force)
        except FileExistsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        elapsed = time.perf_counter() - started
        print(f"wrote {len(entries)} entries to {store} in {elapsed:.2f}s", file=sys.stderr)
    for obj in pick_samples(entries, args.print_sample):
        print(json.dumps(obj, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
