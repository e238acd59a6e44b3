"""Write the bundled demo memory store ``examples/demo/.memsite/``.

The demo describes a fictitious but believable project, "Acme Checkout": a TypeScript/Node
checkout service (Fastify API, Next.js web app, BullMQ worker) on Postgres and Redis in a pnpm
monorepo, with a Python data pipeline, deployed on Kubernetes, CI on GitHub Actions.

The output is deterministic: timestamps are fixed and ids are derived from each entry's name
(``uuid.UUID(bytes=sha256(seed).digest()[:16], version=4)``). Running the script deletes and
recreates ``examples/demo/.memsite/entries/`` (only that folder) and rewrites ``config.json`` and
``.gitignore`` next to it, and the few project files that facts are anchored to (``FILES``).
Some facts also have records: verifications, a retirement and typed links (``RECORDS``); one
anchor is pinned to an older version of its file, so the demo shows drift. Standard library
only::

    python examples/make_demo.py
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

STORE = Path(__file__).resolve().parent / "demo" / ".memsite"
ID_SEED_PREFIX = "memsite-demo/acme-checkout/"
CATEGORIES = ("conventions", "architecture", "operations", "decisions")
CONFIDENCES = ("high", "medium", "low")
NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
CREATED_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
FIRST_DAY = "2026-07-01"
LAST_DAY = "2026-11-20"

CONFIG: dict[str, Any] = {
    "memory": {"autoInjectTokenBudget": 1200, "reviewAfterDays": {"operations": 120}},
    "site": {"site_name": "Acme Checkout — project memory"},
}
GITIGNORE_LINES = ("compacted/", "index.md", "cache/", "site/", "daily/", "review.log")


@dataclass(frozen=True)
class Spec:
    """One demo entry; ``name`` seeds the id and is how other specs refer to it."""

    name: str
    created: str
    category: str
    agent: str
    confidence: str
    tags: tuple[str, ...]
    content: str
    supersedes: tuple[str, ...] = ()
    key: str | None = None
    reason: str | None = None


def e(
    name: str,
    created: str,
    category: str,
    agent: str,
    confidence: str,
    tags: list[str],
    content: str,
    *,
    supersedes: str | list[str] | None = None,
    key: str | None = None,
    reason: str | None = None,
) -> Spec:
    if supersedes is None:
        sup: tuple[str, ...] = ()
    elif isinstance(supersedes, str):
        sup = (supersedes,)
    else:
        sup = tuple(supersedes)
    return Spec(name, created, category, agent, confidence, tuple(tags), content, sup, key, reason)


# Chronological. Supersession chains (newest first):
#   node22 -> node20 -> node18             (conventions, key node-version)
#   deploy_argocd -> deploy_helm -> deploy_kubectl   (operations, key deploy-process)
#   vitest -> jest, uv -> poetry, bullmq -> redis_lists, kysely -> prisma,
#   worker_fix -> worker_leak
#   sessions_redis -> [sessions_pg, csrf_table]      (one entry replacing two)
# Contradiction without supersedes: lint_eslint vs lint_biome (conventions, key lint-command).
# One header line per entry reads better than one argument per line.
# fmt: off
SPECS: list[Spec] = [
    e(
        "layout", "2026-07-01T09:02:11.204Z", "architecture", "claude-code", "high",
        ["monorepo", "pnpm"],
        "Monorepo layout: `apps/api` (Fastify REST API), `apps/web` (Next.js checkout UI), "
        "`apps/worker` (background jobs), shared libraries in `packages/*`, the Python data "
        "pipeline in `pipeline/` and Helm charts in `deploy/`.",
    ),
    e(
        "pnpm", "2026-07-01T09:15:47.530Z", "conventions", "claude-code", "high",
        ["pnpm", "tooling"],
        "Always use pnpm (version pinned via `packageManager` in the root package.json), never "
        "npm or yarn. CI installs with `pnpm install --frozen-lockfile`; run the same locally "
        "after pulling.",
        key="package-manager",
    ),
    e(
        "node18", "2026-07-02T10:41:05.918Z", "conventions", "copilot", "medium",
        ["node", "tooling"],
        "All apps run on Node 18 LTS; `.nvmrc` pins 18.19 and the Dockerfiles use "
        "`node:18-bookworm-slim`.",
        key="node-version",
    ),
    e(
        "lint_eslint", "2026-07-03T13:22:39.071Z", "conventions", "copilot", "high",
        ["tooling", "typescript", "ci"],
        "Run `pnpm lint` before pushing: it runs ESLint and Prettier across the whole "
        "workspace, and CI fails on any warning.",
        key="lint-command",
    ),
    e(
        "redis_lists", "2026-07-04T16:08:52.660Z", "architecture", "codex", "medium",
        ["redis", "queue"],
        "Background jobs (receipt emails, webhook retries) are pushed onto Redis lists with "
        "LPUSH by the API and consumed by `apps/worker` with BRPOP; there is no retry logic, "
        "failed jobs are only logged.",
        key="job-queue",
    ),
    e(
        "jest", "2026-07-05T11:30:18.442Z", "conventions", "claude-code", "high",
        ["testing", "typescript"],
        "Unit tests use Jest with ts-jest: run `pnpm test` at the root or "
        "`pnpm --filter @acme/api test` for a single package. Test files sit next to the code "
        "as `*.test.ts`.",
        key="test-runner",
    ),
    e(
        "deploy_kubectl", "2026-07-06T08:55:31.127Z", "operations", "priya.nair", "medium",
        ["deploy", "k8s"],
        "Staging deploys are done from a laptop: `kubectl apply -k deploy/overlays/staging` "
        "with the staging kubeconfig. Production deploys are done by the platform team only.",
        key="deploy-process",
    ),
    e(
        "commit", "2026-07-07T14:12:03.585Z", "conventions", "cursor", "high",
        ["git", "tooling"],
        "Commit messages follow Conventional Commits, e.g. `feat(api): add partial refunds` or "
        "`fix(worker): retry webhook on 429`; the scope is the workspace package name. "
        "commitlint enforces it in the husky `commit-msg` hook.",
        key="commit-style",
    ),
    e(
        "poetry", "2026-07-08T09:47:26.310Z", "conventions", "jonas.weber", "high",
        ["python", "pipeline", "tooling"],
        "The data pipeline in `pipeline/` is managed with Poetry: `poetry install`, then "
        "`poetry run pytest` for tests. Python 3.12.",
        key="python-tooling",
    ),
    e(
        "money", "2026-07-09T15:03:44.802Z", "conventions", "claude-code", "high",
        ["payments", "typescript"],
        "Money is always handled as integer minor units (cents) plus an ISO 4217 currency code; "
        "never use floats for amounts. Use the `Money` type and helpers from `@acme/money`.",
    ),
    e(
        "prisma", "2026-07-10T10:19:57.236Z", "decisions", "priya.nair", "medium",
        ["postgres", "adr"],
        "ADR-005: use Prisma as the ORM for all Postgres access from the TypeScript apps; the "
        "schema lives in `packages/db/prisma/schema.prisma`.",
        key="db-access",
    ),
    e(
        "adr_postgres", "2026-07-11T12:36:09.954Z", "decisions", "priya.nair", "high",
        ["postgres", "adr"],
        "ADR-002: Postgres over MongoDB for orders and payments. We need transactions spanning "
        "orders, payments and ledger rows plus real constraints; document-shaped data (e.g. raw "
        "PSP responses) goes into `jsonb` columns.",
    ),
    e(
        "orders_schema", "2026-07-13T09:58:41.377Z", "architecture", "codex", "high",
        ["postgres", "orders"],
        "`orders.status` is a Postgres enum (`pending`, `authorized`, `captured`, `refunded`, "
        "`failed`); status changes only go through `OrderStateMachine` in "
        "`apps/api/src/orders/state.ts`, never via direct UPDATEs.",
    ),
    e(
        "sessions_pg", "2026-07-15T17:21:12.045Z", "architecture", "copilot", "medium",
        ["sessions", "postgres"],
        "Web sessions are stored in the Postgres table `sessions` (id, customer_id, data jsonb, "
        "expires_at); a nightly job deletes expired rows.",
    ),
    e(
        "env_vars", "2026-07-16T10:02:33.719Z", "operations", "claude-code", "high",
        ["env", "security", "local-dev"],
        "`apps/api` needs `DATABASE_URL`, `DATABASE_REPLICA_URL`, `REDIS_URL`, "
        "`PSP_WEBHOOK_SECRET` and `LOG_LEVEL`. Locally copy `.env.example` to `.env` (never "
        "commit it); in the clusters the values come from the `checkout-secrets` Kubernetes "
        "Secret.",
    ),
    e(
        "local_dev", "2026-07-17T08:44:50.263Z", "operations", "cursor", "high",
        ["docker", "local-dev"],
        "Local dev: `docker compose up -d postgres redis`, then `pnpm dev` starts the API on "
        ":4000, the web app on :3000 and the worker, all with hot reload.",
    ),
    e(
        "idempotency", "2026-07-18T13:37:16.588Z", "architecture", "claude-code", "high",
        ["api", "payments", "redis"],
        "Every POST under `/v1/payments` requires an `Idempotency-Key` header; keys and the "
        "stored response are kept in Redis for 24h under `idem:{merchantId}:{key}`. Reusing a "
        "key with a different body returns 422.",
    ),
    e(
        "csrf_table", "2026-07-20T11:11:27.804Z", "architecture", "copilot", "medium",
        ["security", "sessions", "postgres"],
        "CSRF tokens live in a separate `csrf_tokens` table keyed by session id and are rotated "
        "on login.",
    ),
    e(
        "errors", "2026-07-21T15:49:38.126Z", "conventions", "codex", "high",
        ["api", "errors"],
        "API route handlers return errors as RFC 7807 `application/problem+json` through the "
        "`problem()` helper in `apps/api/src/http/errors.ts`; don't throw bare `Error`s from "
        "handlers.",
    ),
    e(
        "gateway", "2026-07-22T09:26:04.491Z", "architecture", "priya.nair", "high",
        ["payments", "api"],
        "Payment providers sit behind the `PaymentGateway` interface in `packages/payments`. "
        "Stripe and Adyen adapters exist; the adapter is chosen per merchant from "
        "`merchants.gateway`.",
    ),
    e(
        "adr_turbo", "2026-07-23T14:05:59.672Z", "decisions", "jonas.weber", "medium",
        ["pnpm", "monorepo", "adr"],
        "ADR-003: pnpm workspaces plus Turborepo for task orchestration and caching rather than "
        "Nx. Turborepo was simpler to adopt incrementally; its remote cache is used in CI.",
        key="build-orchestrator",
    ),
    e(
        "webhooks", "2026-07-24T10:33:21.907Z", "architecture", "claude-code", "high",
        ["payments", "webhooks", "queue"],
        "PSP webhooks arrive at `POST /v1/webhooks/psp`, are signature-checked, stored in "
        "`psp_events` (unique on the provider event id, so replays are no-ops) and then "
        "processed asynchronously.",
    ),
    e(
        "imports", "2026-07-27T16:18:45.150Z", "conventions", "cursor", "medium",
        ["typescript", "monorepo"],
        "Inside a package import via the `@/` alias (tsconfig `paths`); across packages always "
        "import by package name (`@acme/db`), never with relative paths into `../../packages`.",
    ),
    e(
        "ci_workflow", "2026-07-28T09:09:12.833Z", "operations", "codex", "high",
        ["ci", "pnpm"],
        "GitHub Actions `ci.yml` runs lint, typecheck, unit and integration tests as parallel "
        "jobs, cached on `pnpm-lock.yaml`. If CI fails with `ERR_PNPM_OUTDATED_LOCKFILE`, run "
        "`pnpm install` locally and commit the lockfile.",
    ),
    e(
        "deploy_helm", "2026-08-01T11:42:36.296Z", "operations", "priya.nair", "high",
        ["deploy", "k8s", "ci"],
        "Deploys use Helm from CI: on merge to main the `deploy.yml` workflow runs "
        "`helm upgrade --install checkout deploy/charts/checkout -f deploy/values/staging.yaml`;"
        " production needs a manual approval on the `promote` job.",
        supersedes="deploy_kubectl",
        key="deploy-process",
        reason="The Kustomize overlays were replaced by a Helm chart and deploys moved into CI; "
        "nobody deploys from a laptop any more.",
    ),
    e(
        "cart_redis", "2026-08-03T13:57:08.519Z", "architecture", "codex", "medium",
        ["redis", "cart"],
        "Carts live only in Redis (hash `cart:{cartId}`, TTL 7 days) and are written to "
        "Postgres when an order is created; losing Redis loses open carts but no orders.",
    ),
    e(
        "bullmq", "2026-08-05T10:24:49.738Z", "architecture", "claude-code", "high",
        ["redis", "queue"],
        "Background jobs use BullMQ on Redis with the queues `emails`, `webhooks` and "
        "`payouts`. Producers enqueue through `@acme/queues`, e.g. "
        "`queues.emails.add('receipt', { orderId })`; failed jobs retry 5 times with "
        "exponential backoff.",
        supersedes="redis_lists",
        key="job-queue",
        reason="The hand-rolled Redis list queue was replaced by BullMQ (ADR-004) to get "
        "retries, backoff and delayed jobs.",
    ),
    e(
        "adr_bullmq", "2026-08-05T10:31:14.062Z", "decisions", "claude-code", "high",
        ["queue", "redis", "adr"],
        "ADR-004: BullMQ over RabbitMQ for background jobs. We already operate Redis, volume is "
        "below 200 jobs/s, and BullMQ gives retries, delays and a dashboard out of the box. "
        "Revisit if we need fan-out to other teams' services.",
    ),
    e(
        "replica", "2026-08-07T15:12:27.381Z", "architecture", "jonas.weber", "high",
        ["postgres", "performance"],
        "Reporting and export queries must use the read replica through `db.replica` from "
        "`@acme/db`; the primary is reserved for the API write path.",
    ),
    e(
        "flaky_refund", "2026-08-11T09:36:53.604Z", "operations", "cursor", "medium",
        ["testing", "flaky-tests"],
        "Flaky: `apps/api/test/refunds.int.test.ts` > 'partial refund after capture' fails "
        "about 1 in 20 CI runs (clock skew between the Testcontainers Postgres and the runner). "
        "Re-run once before investigating; tracked in CHK-517.",
    ),
    e(
        "node20", "2026-08-14T14:28:10.947Z", "conventions", "claude-code", "high",
        ["node", "tooling", "docker"],
        "All apps run on Node 20 LTS: `.nvmrc` pins 20.15 and the Dockerfiles use "
        "`node:20-bookworm-slim`.",
        supersedes="node18",
        key="node-version",
        reason="Node 18 reached end of life; the upgrade to Node 20 landed in PR #412.",
    ),
    e(
        "kysely", "2026-08-20T10:50:32.210Z", "decisions", "priya.nair", "high",
        ["postgres", "adr"],
        "ADR-005 (revised): use Kysely, a type-safe SQL query builder, instead of Prisma for "
        "Postgres access. Table types are generated with `kysely-codegen` into "
        "`packages/db/src/types.ts`.",
        supersedes="prisma",
        key="db-access",
        reason="The team reversed the Prisma decision after the CHK-390 spike: the generated "
        "client was too heavy for the worker and raw reporting SQL was awkward.",
    ),
    e(
        "incident_seqscan", "2026-08-22T19:04:46.835Z", "operations", "codex", "high",
        ["postgres", "incident", "performance"],
        "Incident 2026-08-22: checkout p99 latency hit 4 s because the `orders_by_merchant` "
        "query did a sequential scan. Fixed with the index `orders_merchant_created_idx` on "
        "(merchant_id, created_at DESC). Build large indexes with `CREATE INDEX CONCURRENTLY`, "
        "see https://www.postgresql.org/docs/16/sql-createindex.html.",
    ),
    e(
        "migrations", "2026-08-25T11:16:21.466Z", "conventions", "claude-code", "high",
        ["postgres", "migrations"],
        "Migrations live in `packages/db/migrations/` as Kysely migration files named "
        "`YYYYMMDDHHMM_description.ts`; create one with "
        "`pnpm --filter @acme/db migrate:new <name>`. Never edit a migration that is already on "
        "main, add a new one.",
        key="db-migrations",
    ),
    e(
        "worker_leak", "2026-08-27T08:31:58.093Z", "operations", "cursor", "low",
        ["worker", "incident"],
        "The worker's heap grows about 50 MB/h while processing payout batches on Node 20, "
        "probably a leak in the payout batching code; as a stopgap a CronJob restarts "
        "`deploy/worker` every night at 03:00 UTC.",
    ),
    e(
        "uuidv7", "2026-08-28T13:44:07.712Z", "decisions", "codex", "high",
        ["postgres", "adr"],
        "Decision: new primary keys are UUIDv7 instead of bigint serials: time-ordered for "
        "index locality, generated in the app before insert, and order ids can't be "
        "enumerated.",
    ),
    e(
        "adr_vitest", "2026-09-02T10:05:39.275Z", "decisions", "claude-code", "high",
        ["testing", "adr"],
        "ADR-007: Vitest over Jest. Native ESM and TypeScript without ts-jest, a Jest-compatible "
        "API so the migration is mechanical, and about 3x faster in CI.",
    ),
    e(
        "vitest", "2026-09-03T15:27:51.860Z", "conventions", "claude-code", "high",
        ["testing", "typescript"],
        "Unit tests use Vitest: `pnpm test` at the root, "
        "`pnpm --filter @acme/api test -- --watch` while developing. Import `describe`, `it` "
        "and `expect` from `vitest`; the Jest globals are gone.",
        supersedes="jest",
        key="test-runner",
        reason="Migrated from Jest to Vitest (ADR-007); the CI test job dropped from 6 min to "
        "1 min 40 s.",
    ),
    e(
        "sessions_redis", "2026-09-10T12:13:24.408Z", "architecture", "claude-code", "high",
        ["sessions", "redis", "security"],
        "Web sessions and their CSRF token are stored together in Redis: hash `sess:{id}` with "
        "a `csrf` field and a sliding TTL of 30 minutes. The `sessions` and `csrf_tokens` "
        "tables were dropped by migration `202609081130_drop_sessions`.",
        supersedes=["sessions_pg", "csrf_table"],
        reason="Sessions moved to Redis and the CSRF token is now a field of the session hash, "
        "so both the sessions-table and the csrf_tokens-table facts are obsolete.",
    ),
    e(
        "flags", "2026-09-12T09:48:15.937Z", "conventions", "copilot", "medium",
        ["feature-flags", "typescript"],
        "Feature flags are checked with `flags.isEnabled('flag-name', ctx)` from `@acme/flags`; "
        "flag names are kebab-case, and a flag must be deleted within two sprints of reaching "
        "100% rollout.",
    ),
    e(
        "flaky_3ds", "2026-09-15T16:39:02.154Z", "operations", "codex", "high",
        ["testing", "flaky-tests", "playwright"],
        "The Playwright e2e test `checkout-3ds.spec.ts` is quarantined: it is tagged `@flaky` "
        "and CI runs Playwright with `--grep-invert @flaky`, because the 3DS sandbox iframe "
        "times out intermittently.",
    ),
    e(
        "redis_runbook", "2026-09-17T22:07:33.590Z", "operations", "jonas.weber", "high",
        ["redis", "runbook", "incident"],
        "Redis failover runbook: https://runbooks.acme.example/checkout/redis-failover. After a "
        "failover restart the worker (`kubectl -n checkout rollout restart deploy/worker`) "
        "because BullMQ connections don't always reconnect on their own.",
    ),
    e(
        "adr_biome", "2026-09-20T10:58:48.321Z", "decisions", "cursor", "high",
        ["tooling", "adr"],
        "ADR-009: Biome replaces ESLint + Prettier for linting and formatting TypeScript: one "
        "tool, one config, roughly 20x faster. Accepted loss: a few ESLint plugins without "
        "Biome equivalents.",
    ),
    e(
        "lint_biome", "2026-09-22T14:34:17.649Z", "conventions", "cursor", "high",
        ["tooling", "typescript", "ci"],
        "Linting and formatting are done by Biome: run `pnpm check` (or `pnpm check --write` to "
        "apply fixes). The ESLint and Prettier configs were removed from the repo.",
        key="lint-command",
    ),
    e(
        "pipeline_cron", "2026-09-24T08:20:29.183Z", "architecture", "jonas.weber", "high",
        ["python", "pipeline", "k8s"],
        "The Python pipeline runs nightly at 02:00 UTC as the Kubernetes CronJob "
        "`pipeline-nightly`; it reads from the Postgres read replica and writes Parquet files "
        "to the `acme-checkout-exports` bucket, partitioned by day.",
    ),
    e(
        "adr_python", "2026-09-25T11:52:06.775Z", "decisions", "jonas.weber", "medium",
        ["python", "pipeline", "adr"],
        "Decision: the data pipeline stays in Python rather than TypeScript because the "
        "analytics team owns it and relies on pandas and pyarrow. It must not import from the "
        "TS packages; its contract is the Postgres schema.",
    ),
    e(
        "uv", "2026-10-02T13:09:40.512Z", "conventions", "codex", "high",
        ["python", "pipeline", "tooling"],
        "The pipeline uses uv: `uv sync` to install, `uv run pytest` for tests and "
        "`uv run ruff check .` for lint. Dependencies are locked in `pipeline/uv.lock`; "
        "Python 3.12.",
        supersedes="poetry",
        key="python-tooling",
        reason="The pipeline switched from Poetry to uv in PR #603; `poetry.lock` was replaced "
        "by `uv.lock`.",
    ),
    e(
        "backfill", "2026-10-05T10:41:55.048Z", "operations", "jonas.weber", "medium",
        ["python", "pipeline", "runbook"],
        "To backfill exports for a date range run "
        "`uv run python -m pipeline.backfill --from 2026-08-01 --to 2026-08-07` in `pipeline/`; "
        "it is idempotent per day partition, so re-running a day overwrites it.",
    ),
    e(
        "observability", "2026-10-07T15:16:23.799Z", "operations", "priya.nair", "high",
        ["observability", "oncall"],
        "Service dashboards are in the Grafana folder `Checkout`; the SLO dashboard tracks "
        "99.9% successful `POST /v1/payments` over 28 days. Alerts page the #checkout-oncall "
        "rotation.",
    ),
    e(
        "logging", "2026-10-08T09:53:12.426Z", "conventions", "copilot", "high",
        ["observability", "logging"],
        "Use the shared pino logger from `@acme/logger` with structured fields first, e.g. "
        "`log.info({ orderId }, 'order captured')`; no `console.log` in apps.",
    ),
    e(
        "adr_argocd", "2026-10-14T13:28:44.137Z", "decisions", "priya.nair", "high",
        ["deploy", "k8s", "adr"],
        "ADR-011: GitOps with Argo CD instead of running Helm from CI. Cluster state is "
        "auditable in git, a rollback is a git revert, and CI no longer needs cluster "
        "credentials.",
    ),
    e(
        "deploy_argocd", "2026-10-15T10:07:19.860Z", "operations", "priya.nair", "high",
        ["deploy", "k8s", "ci"],
        "Deploys are GitOps via Argo CD: CI builds the image and bumps the tag in "
        "`deploy/values/<env>.yaml`; Argo CD syncs staging automatically and production after "
        "a manual sync in the Argo UI. Never run `helm upgrade` by hand.",
        supersedes="deploy_helm",
        key="deploy-process",
        reason="Adopted Argo CD (ADR-011); the `helm upgrade` step was removed from "
        "`deploy.yml`.",
    ),
    e(
        "migrate_job", "2026-10-20T14:45:51.302Z", "operations", "codex", "medium",
        ["postgres", "migrations", "deploy"],
        "DB migrations run as the Argo CD PreSync hook Job `db-migrate`; if it fails the sync "
        "stops and the old pods keep serving. Check its logs with "
        "`kubectl -n checkout logs job/db-migrate`.",
    ),
    e(
        "worker_fix", "2026-10-22T11:34:08.655Z", "operations", "claude-code", "high",
        ["worker", "node"],
        "The worker memory leak is fixed: it was an unbounded `Map` cache in the payout "
        "batching code (PR #671). The nightly worker-restart CronJob was deleted; the heap now "
        "stays flat around 180 MB.",
        supersedes="worker_leak",
        reason="The leak was found and fixed in PR #671, so the nightly restart workaround is "
        "gone.",
    ),
    e(
        "concurrency", "2026-10-24T09:21:37.118Z", "operations", "copilot", "medium",
        ["ci", "deploy"],
        "`deploy.yml` sets `concurrency: deploy-${{ github.ref }}` so only one image build and "
        "tag bump runs per branch at a time; see "
        "https://docs.github.com/en/actions/using-jobs/using-concurrency.",
    ),
    e(
        "node22", "2026-10-29T16:02:54.481Z", "conventions", "claude-code", "high",
        ["node", "tooling", "docker"],
        "All apps run on Node 22 LTS: `.nvmrc` pins 22.11 and the Dockerfiles use "
        "`node:22-bookworm-slim`. Scripts load env files with Node's built-in `--env-file` "
        "instead of dotenv.",
        supersedes="node20",
        key="node-version",
        reason="Node 22 became the active LTS; upgraded in PR #688 once the worker memory leak "
        "was fixed.",
    ),
    e(
        "killswitch", "2026-11-03T12:47:25.974Z", "operations", "priya.nair", "medium",
        ["payments", "feature-flags", "incident"],
        "Kill switch: turning off the flag `psp-adyen-enabled` routes all merchants to the "
        "Stripe adapter within about 30 s (the flag cache TTL). Use it during Adyen outages; no "
        "deploy needed.",
    ),
    e(
        "pr_size", "2026-11-05T10:15:03.339Z", "conventions", "jonas.weber", "low",
        ["git", "review"],
        "Keep PRs under roughly 400 changed lines and get one approving review from CODEOWNERS; "
        "larger changes should be split and hidden behind a feature flag.",
    ),
    e(
        "nextjs", "2026-11-09T14:38:16.720Z", "conventions", "cursor", "medium",
        ["frontend", "nextjs"],
        "`apps/web` uses the Next.js App Router: server components by default, add "
        "`'use client'` only to small interactive leaf components.",
    ),
    e(
        "no_graphql", "2026-11-12T09:59:48.903Z", "decisions", "codex", "low",
        ["api", "adr"],
        "Decision (tentative): no GraphQL for the public API; merchants integrate with REST "
        "plus the OpenAPI spec. A GraphQL BFF for `apps/web` may be revisited next year.",
    ),
    e(
        "openapi", "2026-11-14T15:24:31.547Z", "architecture", "claude-code", "high",
        ["api", "typescript"],
        "The public API is versioned by URL prefix (`/v1`); breaking changes need a new prefix. "
        "The OpenAPI spec is generated from the Fastify route schemas with "
        "`pnpm --filter @acme/api openapi` into `apps/api/openapi.json`.",
    ),
    e(
        "testcontainers", "2026-11-17T11:06:42.289Z", "conventions", "codex", "high",
        ["testing", "postgres", "docker"],
        "Integration tests that need Postgres or Redis use Testcontainers and run with "
        "`pnpm test:int` (Docker required); they are excluded from `pnpm test`.",
    ),
    e(
        "rate_limit", "2026-11-19T16:51:20.064Z", "operations", "claude-code", "medium",
        ["api", "redis"],
        "The API rate limit is 100 requests/s per merchant (token bucket in Redis via "
        "`@fastify/rate-limit`); raise it for a single merchant with "
        "`merchants.rate_limit_override`, not by changing config.",
    ),
    e(
        "tax", "2026-11-20T10:12:55.731Z", "architecture", "jonas.weber", "medium",
        ["tax", "performance"],
        "`packages/tax` contains pure functions only (no I/O); tax rates are loaded from "
        "`tax_rates` at startup and cached in memory for 15 minutes, so rate changes take up "
        "to 15 min to apply.",
    ),
]
# fmt: on


# Project files (relative to examples/demo/, the demo's project root) that facts are anchored to.
FILES: dict[str, str] = {
    ".nvmrc": "22.11\n",
    "apps/api/src/rate-limit.ts": (
        "import rateLimit from '@fastify/rate-limit';\n"
        "\n"
        "export const limits = {\n"
        "  max: 100, // requests per second and merchant\n"
        "  timeWindow: 1000,\n"
        "};\n"
        "\n"
        "export default rateLimit;\n"
    ),
    "packages/tax/src/rates.ts": (
        "// Tax rates come from the tax_rates table and are cached in memory.\n"
        "export const RATE_CACHE_MINUTES = 10;\n"
        "\n"
        "export async function loadRates(db: Db): Promise<Rates> {\n"
        "  return db.selectFrom('tax_rates').selectAll().execute();\n"
        "}\n"
    ),
}
# (fact, path, lines, the file's text when the fact was pinned if it changed since)
ANCHORS: list[tuple[str, str, tuple[int, int] | None, str | None]] = [
    ("node22", ".nvmrc", None, None),
    ("rate_limit", "apps/api/src/rate-limit.ts", (3, 6), None),
    (
        "tax",
        "packages/tax/src/rates.ts",
        (1, 2),
        FILES["packages/tax/src/rates.ts"].replace("= 10;", "= 15;"),
    ),
]
# (kind, fact, created, fields): verifications, a retirement and typed links.
RECORDS: list[tuple[str, str, str, dict[str, str]]] = [
    (
        "verify",
        "node22",
        "2026-11-24T09:30:00.000Z",
        {"evidence": "Checked .nvmrc and the Dockerfiles on main: 22.11 everywhere."},
    ),
    (
        "verify",
        "killswitch",
        "2026-11-25T16:05:00.000Z",
        {"evidence": "Exercised in the November game day: all merchants moved to Stripe in 40 s."},
    ),
    (
        "retire",
        "flaky_3ds",
        "2026-11-26T11:20:00.000Z",
        {
            "reason": "The 3-D Secure e2e test was fixed (a race on the challenge iframe) and runs "
            "again on every PR; nothing is quarantined any more."
        },
    ),
    (
        "relate",
        "deploy_argocd",
        "2026-11-27T10:00:00.000Z",
        {"other": "adr_argocd", "type": "refines", "reason": "how the ADR is carried out"},
    ),
    (
        "relate",
        "migrate_job",
        "2026-11-27T10:02:00.000Z",
        {"other": "deploy_argocd", "type": "depends-on", "reason": "the Job is an Argo CD hook"},
    ),
    (
        "relate",
        "adr_biome",
        "2026-11-27T10:04:00.000Z",
        {"other": "lint_biome", "type": "supports"},
    ),
]


def blob_id(text: str) -> str:
    """The git blob id of a file's text (what `git hash-object` prints)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def span_hash(text: str, lines: tuple[int, int]) -> str:
    """memsite's span hash: the lines with whitespace collapsed and trimmed, joined by \\n."""
    chosen = text.splitlines()[lines[0] - 1 : lines[1]]
    normal = [re.sub(r"\s+", " ", line).strip() for line in chosen]
    return hashlib.sha1("\n".join(normal).encode()).hexdigest()


def anchors_of(name: str) -> list[dict[str, Any]]:
    found = []
    for fact, path, lines, pinned in ANCHORS:
        if fact != name:
            continue
        text = pinned if pinned is not None else FILES[path]
        anchor: dict[str, Any] = {"path": path, "blob": blob_id(text)}
        if lines is not None:
            anchor["lines"] = list(lines)
            anchor["span"] = span_hash(text, lines)
        found.append(anchor)
    return found


def record_objects() -> list[dict[str, Any]]:
    objects = []
    for number, (kind, fact, created, fields) in enumerate(RECORDS):
        obj: dict[str, Any] = {
            "record": kind,
            "id": entry_id(f"record/{number}"),
            "target": entry_id(fact),
            "created": created,
            "agent": "jonas.weber",
        }
        for key, value in fields.items():
            obj[key] = entry_id(value) if key == "other" else value
        objects.append(obj)
    return objects


def entry_id(name: str) -> str:
    """Deterministic UUID4-shaped id for a spec name."""
    digest = hashlib.sha256((ID_SEED_PREFIX + name).encode("utf-8")).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def file_name(created: str, eid: str) -> str:
    """``2026-03-07T14:30:00.123Z`` + id -> ``2026-03-07T14-30-00Z-<8 hex>.json``."""
    return created[:19].replace(":", "-") + f"Z-{eid[:8]}.json"


def check_specs(specs: list[Spec]) -> None:
    """Fail loudly on a mistake in SPECS rather than writing a broken demo store."""
    by_name: dict[str, Spec] = {}
    for spec in specs:
        if spec.name in by_name:
            raise ValueError(f"duplicate spec name {spec.name!r}")
        by_name[spec.name] = spec
        if not CREATED_RE.fullmatch(spec.created):
            raise ValueError(f"{spec.name}: bad created {spec.created!r}")
        datetime.strptime(spec.created, "%Y-%m-%dT%H:%M:%S.%fZ")  # real calendar date
        if not FIRST_DAY <= spec.created[:10] <= LAST_DAY:
            raise ValueError(f"{spec.name}: created outside {FIRST_DAY}..{LAST_DAY}")
        if spec.category not in CATEGORIES:
            raise ValueError(f"{spec.name}: unknown category {spec.category!r}")
        if spec.confidence not in CONFIDENCES:
            raise ValueError(f"{spec.name}: bad confidence {spec.confidence!r}")
        for name in (*spec.tags, *((spec.key,) if spec.key else ())):
            if not NAME_RE.fullmatch(name):
                raise ValueError(f"{spec.name}: bad tag/key {name!r}")
        if bool(spec.supersedes) != bool(spec.reason):
            raise ValueError(f"{spec.name}: give a reason exactly when superseding")
        for old in spec.supersedes:
            if old not in by_name:
                raise ValueError(f"{spec.name}: supersedes unknown or later spec {old!r}")
            if by_name[old].created >= spec.created:
                raise ValueError(f"{spec.name}: supersedes a newer entry {old!r}")
    names = [file_name(s.created, entry_id(s.name)) for s in specs]
    if len(set(names)) != len(names):
        raise ValueError("two specs map to the same file name")


def to_object(spec: Spec) -> dict[str, Any]:
    """The on-disk JSON object, keys in the canonical order."""
    sup_ids = [entry_id(name) for name in spec.supersedes]
    obj: dict[str, Any] = {
        "id": entry_id(spec.name),
        "category": spec.category,
        "content": spec.content,
        "created": spec.created,
        "agent": spec.agent,
        "tags": list(spec.tags),
        "supersedes": (sup_ids[0] if len(sup_ids) == 1 else sup_ids) if sup_ids else None,
        "confidence": spec.confidence,
    }
    if spec.key is not None:
        obj["key"] = spec.key
    if spec.reason is not None:
        obj["reason"] = spec.reason
    anchors = anchors_of(spec.name)
    if anchors:
        obj["anchors"] = anchors
    return obj


def dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def write_store(store: Path = STORE, specs: list[Spec] = SPECS) -> int:
    """(Re)write the demo store; returns the number of entries written."""
    check_specs(specs)
    entries = store / "entries"
    store.mkdir(parents=True, exist_ok=True)
    if entries.exists():
        shutil.rmtree(entries)
    entries.mkdir()
    for spec in specs:
        obj = to_object(spec)
        path = entries / file_name(spec.created, obj["id"])
        path.write_text(dump(obj), encoding="utf-8", newline="\n")
    for obj in record_objects():
        path = entries / file_name(obj["created"], obj["id"])
        path.write_text(dump(obj), encoding="utf-8", newline="\n")
    for name, text in FILES.items():
        target = store.parent / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
    (store / "config.json").write_text(dump(CONFIG), encoding="utf-8", newline="\n")
    gitignore = "".join(line + "\n" for line in GITIGNORE_LINES)
    (store / ".gitignore").write_text(gitignore, encoding="utf-8", newline="\n")
    return len(specs)


def main() -> int:
    count = write_store()
    print(f"wrote {count} entries to {STORE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
