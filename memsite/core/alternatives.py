"""Named alternatives: the tools, stores, formats and units a team picks one of, in families
of names that stand for one another ("install with npm" / "install with pnpm"). Pure.

The conflict rule (``core.conflicts``) compares two names only within one family, so "pnpm"
and "npm" may disagree where "pnpm" and "pytest" never do. A name may be in more than one
family (Redis is a data store and a broker). Each entry is ``canonical=alias=alias``; a
plural (a name with an ``s`` added) reads as the name. Words that are also common English
(``make``, ``render``, ``rest``, ``requests``) are left out on purpose: a family member is
taken as a name wherever it appears.
"""

from __future__ import annotations

from functools import cache

_FAMILIES = """
js-package-manager: npm pnpm yarn bun
python-package-manager: pip pipenv poetry uv conda pdm hatch rye
datastore: postgres=postgresql=pg mysql mariadb sqlite=sqlite3 mongodb=mongo dynamodb cassandra
    cockroachdb redis valkey memcached oracle mssql clickhouse bigquery snowflake duckdb
broker: rabbitmq kafka sqs nats redpanda pulsar activemq redis
jobs: celery rq dramatiq huey sidekiq resque bullmq arq
test-runner: pytest unittest nose nose2 tox nox jest vitest mocha jasmine ava karma rspec
    minitest phpunit junit testng
e2e: cypress playwright selenium puppeteer webdriverio testcafe
linter: ruff flake8 pylint pyflakes eslint tslint biome rubocop golangci
formatter: black ruff yapf autopep8 prettier biome dprint gofmt rustfmt
type-checker: mypy pyright pytype pyre
bundler: webpack vite rollup esbuild parcel turbopack rspack snowpack
ci: jenkins circleci travis github gitlab buildkite drone teamcity bamboo
code-host: github gitlab bitbucket gitea
orchestrator: kubernetes=k8s nomad ecs swarm fargate
hosting: vercel netlify heroku cloudflare
infra-as-code: terraform pulumi cloudformation cdk
cloud: aws gcp azure
web-framework: django flask fastapi starlette express koa fastify nestjs hapi rails sinatra
    laravel
orm: sqlalchemy peewee prisma typeorm sequelize drizzle kysely knex hibernate
migrations: alembic flyway liquibase
frontend: react vue angular svelte preact ember
logs: datadog grafana loki elasticsearch opensearch splunk newrelic cloudwatch papertrail
errors: sentry rollbar bugsnag honeybadger airbrake
metrics: prometheus grafana graphite influxdb statsd
jvm-build: gradle maven sbt
build: cmake bazel ninja meson scons
hashing: bcrypt argon2=argon2id scrypt pbkdf2 md5 sha1 sha256 sha512
format: json yaml=yml toml xml ini protobuf msgpack
indentation: tab space
case: camelcase snake_case pascalcase kebab
weekday: monday tuesday wednesday thursday friday saturday sunday
time-unit: millisecond=ms=msec second=sec=secs minute=min=mins hour=hr=hrs day week month
size-unit: kb=kib mb=mib gb=gib tb=tib
merge-style: squash=squashed rebase=rebased
branch: main master develop trunk
version-manager: nvm fnm volta asdf mise pyenv rbenv
container: docker podman
http-client: httpx aiohttp urllib3 axios superagent
object-store: s3 gcs minio
issue-tracker: jira youtrack
shell: bash zsh fish
proxy: nginx haproxy traefik envoy caddy
license: mit apache gpl lgpl bsd mpl
api-style: graphql grpc trpc soap
js-runtime: node=nodejs deno bun
"""

# Numbers right after these words name a document or a thing, not a setting ("ADR-004", "PR #671",
# "issue 23", "May 2025"): two facts with different ones say different things, both true.
IDENTIFIERS = frozenset(
    """adr rfc pr prs pep issue issues ticket incident cve iso bug jira story step phase section
    chapter page line lines item items part figure
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)


@cache
def families() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each name, alias and plural → the (family, canonical name) pairs it stands for."""
    found: dict[str, list[tuple[str, str]]] = {}
    family = ""
    for line in _FAMILIES.strip().splitlines():
        head, _, names = line.strip().rpartition(":")
        family = head or family
        for group in names.split():
            canonical = group.split("=")[0]
            for name in group.split("="):
                found.setdefault(name, []).append((family, canonical))
    table = {name: tuple(pairs) for name, pairs in found.items()}
    for name, pairs in list(table.items()):
        if len(name) > 2:
            table.setdefault(name + "s", pairs)  # "tabs", "minutes", "tuesdays"
    return table


def named(token: str) -> tuple[tuple[str, str], ...]:
    """The (family, canonical name) pairs a lower-case word token stands for (none: it is no
    name of a family)."""
    return families().get(token, ())
