"""Test data for secret detection: fake credentials in every supported format, and ordinary facts.

``FAKE_SECRETS`` holds one fact per credential format, as an agent might paste it. Each value is
built at import time from the format's documented shape (prefix, alphabet, length) with a body
drawn from a ``random.Random`` seeded by the format's name: deterministic, never a real key, and
no token-shaped literal sits in this file. ``ORDINARY_FACTS`` are facts that must never be taken
for secrets: hashes named as such, UUIDs, versions, paths, URLs without credentials, env var
names, config snippets without values, prose about passwords and tokens.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"


class FakeSecret(NamedTuple):
    """One fake credential: its format, the fact holding it, and the raw value itself.

    ``name_form`` is the same format spelled as a valid tag or key (lower case, at most 64
    characters of a-z, 0-9, '.', '_' or '-'), or None where the format cannot be one.
    ``standalone`` says whether the value alone is recognisable (a token format, a long random
    string), rather than only by its context (``password=…``, ``user:…@``, key armour).
    """

    name: str
    fact: str
    value: str
    name_form: str | None = None
    standalone: bool = True


def _rng(name: str) -> random.Random:
    return random.Random(f"memsite-fake-secret:{name}")


def body(name: str, alphabet: str, size: int) -> str:
    """``size`` characters of ``alphabet``, the same for the same ``name`` on every run."""
    return "".join(_rng(name).choices(alphabet, k=size))


def raw_bytes(name: str, size: int) -> bytes:
    return _rng(name).randbytes(size)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"sub": "svc-billing", "aud": "payments-api", "iat": 1767225600, "exp": 1798761600}
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    return f"{header}.{payload}.{b64url(raw_bytes('jwt', 32))}"


def _pem(label: str, name: str, size: int) -> str:
    """The base64 body of a PEM block, in lines of 64 characters (newline-separated)."""
    text = base64.b64encode(raw_bytes(name, size)).decode()
    return "\n".join(text[i : i + 64] for i in range(0, len(text), 64))


def _private_key(label: str, name: str, size: int, lead: str) -> tuple[str, str]:
    """(block, body): a whole ``-----BEGIN <label>-----`` block and its key material."""
    key_body = lead + _pem(label, name, size)
    block = f"-----BEGIN {label}-----\n{key_body}\n-----END {label}-----"
    return block, key_body


def _discord() -> str:
    # The first part is the base64 of the bot's numeric user id, hence its M/N/O first letter.
    user_id = "1" + body("discord-id", string.digits, 18)
    head = base64.b64encode(user_id.encode()).decode().rstrip("=")
    return f"{head}.{body('discord-ts', URLSAFE, 6)}.{body('discord-hmac', URLSAFE, 27)}"


def _secrets() -> list[FakeSecret]:
    aws_id = "AKIA" + body("aws-id", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    aws_secret = base64.b64encode(raw_bytes("aws-secret", 30)).decode()
    ghp = "ghp_" + body("ghp", ALNUM, 36)
    pat = f"github_pat_{body('pat-a', ALNUM, 22)}_{body('pat-b', ALNUM, 59)}"
    gho = "gho_" + body("gho", ALNUM, 36)
    ghs = "ghs_" + body("ghs", ALNUM, 36)
    glpat = "glpat-" + body("glpat", URLSAFE, 20)
    xoxb = f"xoxb-{body('xoxb-1', string.digits, 12)}-{body('xoxb-2', string.digits, 13)}-" + body(
        "xoxb-3", ALNUM, 24
    )
    xoxp = (
        f"xoxp-{body('xoxp-1', string.digits, 12)}-{body('xoxp-2', string.digits, 12)}-"
        f"{body('xoxp-3', string.digits, 13)}-{body('xoxp-4', HEX, 32)}"
    )
    webhook = (
        f"https://hooks.slack.com/services/T{body('hook-t', UPPER_ALNUM, 8)}/"
        f"B{body('hook-b', UPPER_ALNUM, 10)}/{body('hook-s', ALNUM, 24)}"
    )
    sk_live = "sk_live_" + body("sk-live", ALNUM, 24)
    sk_test = "sk_test_" + body("sk-test", ALNUM, 24)
    rk_live = "rk_live_" + body("rk-live", ALNUM, 24)
    rsa_block, rsa_body = _private_key("RSA PRIVATE KEY", "rsa", 600, "MIIEowIBAAKCAQEA")
    ec_block, ec_body = _private_key("EC PRIVATE KEY", "ec", 90, "MHcCAQEEI")
    ssh_block, ssh_body = _private_key(
        "OPENSSH PRIVATE KEY", "openssh", 300, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
    )
    pkcs8_block, pkcs8_body = _private_key("PRIVATE KEY", "pkcs8", 200, "MIIEvQIBADANBgkqhkiG9w0B")
    jwt = _jwt()
    pg_pass = body("pg-pass", ALNUM + "!*-_", 20)
    git_pass = body("git-pass", ALNUM, 18)
    smtp_pass = body("smtp-pass", ALNUM + "#%", 16)
    db_pass = body("db-pass", ALNUM, 24)
    api_key = body("api-key", HEX + "ABCDEF", 32)
    client_secret = body("client-secret", URLSAFE, 40)
    google = "AIza" + body("google", URLSAFE, 35)
    npm = "npm_" + body("npm", ALNUM, 36)
    npm_rc = "npm_" + body("npm-rc", ALNUM, 36)
    pypi = "pypi-AgEIcHlwaS5vcmc" + body("pypi", URLSAFE, 80)
    sendgrid = f"SG.{body('sg-1', URLSAFE, 22)}.{body('sg-2', URLSAFE, 43)}"
    openai = f"sk-proj-{body('oa-1', ALNUM, 40)}T3BlbkFJ{body('oa-2', ALNUM, 40)}"
    openai_legacy = f"sk-{body('oal-1', ALNUM, 20)}T3BlbkFJ{body('oal-2', ALNUM, 20)}"
    twilio = "SK" + body("twilio", HEX, 32)
    mailchimp = body("mailchimp", HEX, 32) + "-us14"
    azure = base64.b64encode(raw_bytes("azure", 64)).decode()
    discord = _discord()
    telegram = f"{body('tg-id', string.digits, 9)}:AA{body('tg', URLSAFE, 33)}"
    hmac = base64.b64encode(raw_bytes("hmac", 33)).decode()

    def lower(name: str, prefix: str, alphabet: str, size: int) -> str:
        return prefix + body(f"{name}-name-form", alphabet, size)

    return [
        FakeSecret(
            "AWS access key id",
            f"Staging deploy uses the IAM user ci-deployer, key id {aws_id}; rotate monthly.",
            aws_id,
        ),
        FakeSecret(
            "AWS secret access key assignment",
            f'~/.aws/credentials on the build box: aws_secret_access_key = "{aws_secret}" '
            "(profile billing-staging)",
            aws_secret,
        ),
        FakeSecret(
            "GitHub classic PAT",
            f"The release workflow pushes tags with the bot's token {ghp}; it expires in March.",
            ghp,
            lower("ghp", "ghp_", LOWER_ALNUM, 36),
        ),
        FakeSecret(
            "GitHub fine-grained PAT",
            f"Renovate runs with a fine-grained token scoped to the infra repo: {pat}",
            pat,
        ),
        FakeSecret(
            "GitHub OAuth token",
            f"gh auth status on the runner showed token {gho} for the platform-bot account.",
            gho,
            lower("gho", "gho_", LOWER_ALNUM, 36),
        ),
        FakeSecret(
            "GitHub app installation token",
            f"For local debugging of the app I used installation token {ghs} (valid one hour).",
            ghs,
            lower("ghs", "ghs_", LOWER_ALNUM, 36),
        ),
        FakeSecret(
            "GitLab PAT",
            f"Mirror job authenticates to gitlab.example.com with {glpat}; owner is @ops.",
            glpat,
            lower("glpat", "glpat-", LOWER_ALNUM + "-_", 20),
        ),
        FakeSecret(
            "Slack bot token",
            f"The deploy notifier bot posts to #releases with {xoxb}.",
            xoxb,
            f"xoxb-{body('xb1', string.digits, 12)}-{body('xb2', string.digits, 13)}-"
            + body("xb3", LOWER_ALNUM, 24),
        ),
        FakeSecret(
            "Slack user token",
            f"Channel archiving script needs a user token: {xoxp}",
            xoxp,
            f"xoxp-{body('xp1', string.digits, 11)}-{body('xp2', string.digits, 11)}-"
            + body("xp3", HEX, 32),
        ),
        FakeSecret(
            "Slack webhook URL",
            f"Alertmanager sends to the incidents channel via {webhook} (set in values.yaml).",
            webhook,
        ),
        FakeSecret(
            "Stripe live secret key",
            f"Production checkout charges cards with {sk_live}; never log it.",
            sk_live,
            lower("sk-live", "sk_live_", LOWER_ALNUM, 24),
        ),
        FakeSecret(
            "Stripe test secret key",
            f"Staging checkout uses Stripe test mode, key {sk_test}, shared by the QA team.",
            sk_test,
            lower("sk-test", "sk_test_", LOWER_ALNUM, 24),
        ),
        FakeSecret(
            "Stripe restricted key",
            f"The reporting job reads payouts with restricted key {rk_live}.",
            rk_live,
            lower("rk-live", "rk_live_", LOWER_ALNUM, 24),
        ),
        FakeSecret(
            "RSA private key block",
            f"Bastion deploy key (do not share):\n{rsa_block}\nInstalled as ~/.ssh/id_rsa on ci-1.",
            rsa_body,
            standalone=False,
        ),
        FakeSecret(
            "EC private key block",
            f"TLS key for the internal gateway:\n{ec_block}",
            ec_body,
            standalone=False,
        ),
        FakeSecret(
            "OpenSSH private key block",
            f"Backup host key, copy it to the new runner:\n{ssh_block}\nchmod 600 after copying.",
            ssh_body,
            standalone=False,
        ),
        FakeSecret(
            "PKCS#8 private key block",
            f"Service account key for the signer:\n{pkcs8_block}",
            pkcs8_body,
            standalone=False,
        ),
        FakeSecret(
            "JWT",
            f"For manual calls to payments-api use the long-lived service JWT {jwt} "
            "in the Authorization header.",
            jwt,
        ),
        FakeSecret(
            "postgres URL with credentials",
            f"Analytics reads replicas at postgres://billing_app:{pg_pass}@db-replica.internal:5432"
            "/billing?sslmode=require",
            pg_pass,
            standalone=False,
        ),
        FakeSecret(
            "https URL with user and password",
            f"Old CI clones with https://ci-bot:{git_pass}@git.example.com/platform/infra.git "
            "until the token migration lands.",
            git_pass,
            standalone=False,
        ),
        FakeSecret(
            "password= assignment",
            f"Local SMTP relay for dev: host=mail.dev.internal user=relay password={smtp_pass}",
            smtp_pass,
            standalone=False,
        ),
        FakeSecret(
            "DB_PASSWORD: assignment",
            f"docker-compose.staging.yml sets DB_PASSWORD: {db_pass} for the orders database.",
            db_pass,
            standalone=False,
        ),
        FakeSecret(
            "api_key quoted assignment",
            f'The analytics SDK config in settings.yml has api_key: "{api_key}" (EU project).',
            api_key,
            standalone=False,
        ),
        FakeSecret(
            "client_secret= assignment",
            f"OAuth app for the portal: client_id=portal-web client_secret={client_secret}",
            client_secret,
            standalone=False,
        ),
        FakeSecret(
            "Google API key",
            f"Maps autocomplete on the checkout page uses browser key {google} (HTTP referrer "
            "restricted).",
            google,
        ),
        FakeSecret(
            "npm token",
            f"Publishing @acme/ui from a laptop needs the automation token {npm}.",
            npm,
            lower("npm", "npm_", LOWER_ALNUM, 36),
        ),
        FakeSecret(
            "npm token in .npmrc",
            f"CI writes //registry.npmjs.org/:_authToken={npm_rc} to ~/.npmrc before publishing.",
            npm_rc,
        ),
        FakeSecret(
            "PyPI token",
            f"twine upload for memsite-tools uses the project-scoped token {pypi}",
            pypi,
        ),
        FakeSecret(
            "SendGrid API key",
            f"Transactional mail goes through SendGrid, key {sendgrid} (mail send only).",
            sendgrid,
        ),
        FakeSecret(
            "OpenAI project key",
            f"The summarizer service calls the API with {openai}; budget alerts at $200.",
            openai,
        ),
        FakeSecret(
            "OpenAI legacy key",
            f"Old notebooks still reference {openai_legacy}, revoked after the leak drill.",
            openai_legacy,
        ),
        FakeSecret(
            "Twilio API key",
            f"SMS verification sends through Twilio API key {twilio} in the eu1 region.",
            twilio,
        ),
        FakeSecret(
            "Mailchimp API key",
            f"Newsletter sync job uses Mailchimp key {mailchimp} for the marketing audience.",
            mailchimp,
            mailchimp,
        ),
        FakeSecret(
            "Azure storage account key",
            "Blob exports use the connection string DefaultEndpointsProtocol=https;"
            f"AccountName=acmeexports;AccountKey={azure};EndpointSuffix=core.windows.net",
            azure,
        ),
        FakeSecret(
            "Discord bot token",
            f"Community bot (moderation) logs in with token {discord}; reset it from the portal.",
            discord,
        ),
        FakeSecret(
            "Telegram bot token",
            f"On-call pager bot for Telegram: {telegram}, chat id in the runbook.",
            telegram,
        ),
        FakeSecret(
            "generic high-entropy base64 secret",
            f"Webhook signatures from the billing provider are verified with {hmac} (HMAC-SHA256).",
            hmac,
        ),
    ]


FAKE_SECRETS: list[FakeSecret] = _secrets()

_SHA1 = "3f786850e387550fdab836ed7e6dc881de23001b"
_SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

ORDINARY_FACTS: list[str] = [
    # commands
    "Install dependencies with pnpm install --frozen-lockfile; never use npm install in CI.",
    "Run the unit tests with pytest -q -p no:cacheprovider tests/ before pushing.",
    "Format with ruff format . and lint with ruff check --fix; line length is 100.",
    "Database migrations: alembic upgrade head, then alembic check in the pipeline.",
    "To reproduce the flaky test, run pytest tests/test_orders.py -k refund --count 50 -x.",
    "Use make dev to start the stack; it runs docker compose -f compose.dev.yml up -d.",
    "kubectl -n payments rollout restart deploy/payments-api restarts the API pods safely.",
    "Tail production logs with stern -n checkout 'checkout-web-.*' --since 10m.",
    "Build the release image: docker buildx build --platform linux/amd64,linux/arm64 -t acme/api .",
    "git log --oneline --first-parent main shows only merge commits of the release train.",
    "terraform plan -var-file=env/staging.tfvars -out=plan.out, then terraform apply plan.out.",
    "Regenerate the OpenAPI client with npx openapi-typescript api.yaml -o src/api/schema.ts.",
    "helm upgrade --install grafana grafana/grafana -n observability -f values/grafana.yaml",
    "psql \"$DATABASE_URL\" -c 'select count(*) from orders' is the quickest sanity check.",
    "export GITHUB_TOKEN=$(gh auth token) before running the release script locally.",
    "export AWS_PROFILE=billing-staging && aws sts get-caller-identity confirms the role.",
    "export NPM_TOKEN=$(op read op://ci/npm/credential) in the publish job, nowhere else.",
    "Use uv pip compile requirements.in -o requirements.txt --generate-hashes for locks.",
    "ssh -J bastion.internal deploy@10.0.4.17 reaches the legacy box behind the bastion.",
    "Clear the Next.js cache with rm -rf .next/cache when builds pick up stale routes.",
    # hashes named as such
    f"The last green build was at commit {_SHA1} on main.",
    f"Revert to git SHA {_SHA1[:12]} if the cache layer misbehaves again.",
    f"sha256 of the approved installer is {_SHA256}; verify before deploying.",
    f"Release 2.4.0 tarball checksum (sha256): {_SHA256[::-1]}",
    "md5sum of the seed dump is d41d8cd98f00b204e9800998ecf8427e (an empty file, oops).",
    "package-lock.json pins left-pad with integrity sha512-"
    + base64.b64encode(bytes(range(64))).decode(),
    '"integrity": "sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" '
    "on the CDN script tag.",
    "The base image is python:3.11-slim@sha256:" + _SHA256 + " (pinned by digest).",
    "Pin nginx to nginx@sha256:" + _SHA256[::-1] + " until the CVE fix ships.",
    "go.sum pins golang.org/x/net v0.23.0 h1:7EYJ93RZ9vYSZAIb2x3lnuvqO5zneoD6IvWjuhfxjTs=",
    "The bastion's SSH host key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8.",
    "Nix flake input hash: sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    "The Helm chart digest in the OCI registry is sha256:" + _SHA256[5:] + _SHA256[:5] + ".",
    "Git object for the broken migration: blob 8ab686eafeb1f44702738c8b0f24f2567c36da6d.",
    # UUIDs and ids
    "The staging tenant id is 3f2b1c9e-8d4a-4e6f-9b2a-7c1d5e8f0a3b; production is different.",
    "Feature flag new-checkout has id 0E9F8A2B-44C1-4D7A-9B3E-5F6A7B8C9D0E in LaunchDarkly.",
    "Sentry project id 4507123456789012 belongs to the checkout-web app.",
    "The AWS account for staging is 123456789012 and production is 210987654321.",
    "IAM role arn:aws:iam::123456789012:role/ci-deployer is assumed by the pipeline via OIDC.",
    "The S3 bucket arn:aws:s3:::acme-exports-eu-west-1 holds nightly exports for 30 days.",
    "Grafana dashboard uid is payments-latency-v2; link panels by uid, not by title.",
    "Trace 4bf92f3577b34da6a3ce929d0e0e4736 was the first one showing the N+1 query.",
    # versions
    "We are on Django 5.0.6 and Python 3.11.9; upgrade to 5.1 is planned for Q3.",
    "Node 20.12.2 LTS is required (see .nvmrc); Node 22 breaks the sharp build.",
    "pydantic>=2.6,<3 and fastapi==0.110.1 are pinned because of the validator changes.",
    "The mobile app min supported version is 4.18.0-rc.2+build.517.",
    "postgres 16.2 in production, 15.6 still on the reporting replica.",
    "Kubernetes clusters run 1.29.3-eks-adcd5a0; node groups use AMI release 1.29.0-20240315.",
    # paths
    "Settings live in src/acme/settings/base.py; per-env overrides in src/acme/settings/prod.py.",
    "Fixtures for the e2e suite are in tests/e2e/fixtures/orders/2024-05-refund-partial.json.",
    "The nginx config is /etc/nginx/conf.d/checkout.conf, templated from ops/nginx/checkout.j2.",
    "Logs rotate under /var/log/acme/api/*.log, kept 14 days by logrotate.",
    "Component tests live next to components: packages/ui-v2/src/DatePicker/DatePicker.test.tsx.",
    "The Windows build unpacks to C:\\Users\\build\\AppData\\Local\\Temp\\acme-installer-4.18.0.",
    "The service account key file path is /var/run/secrets/gcp/key.json (mounted, not committed).",
    "Kubernetes mounts the token at /var/run/secrets/kubernetes.io/serviceaccount/token.",
    "The generated protobufs are in gen/go/acme/payments/v1/payments_service_grpc.pb.go.",
    "Cypress screenshots go to cypress/screenshots/CheckoutFlow2FA.cy.ts/ on failure.",
    # URLs without credentials
    "Grafana: https://grafana.internal/d/payments-latency/api-latency?orgId=1&from=now-6h&to=now",
    "Runbook: https://wiki.example.com/display/OPS/Payments+Incident+Runbook#rollback",
    "Kibana query for failed refunds: https://logs.internal/app/discover#/?_a=(query:'refund')",
    "The staging API is https://api.staging.example.com/v2/orders?limit=50&cursor=abc123.",
    "Docs for the retry policy: https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry.html",
    "Connect locally with postgres://localhost:5432/orders_dev (no password, trust auth).",
    "Redis for dev is redis://redis:6379/0; staging uses rediss://cache.staging.internal:6380/1.",
    "The Sentry DSN host is o450123.ingest.sentry.io; the DSN itself comes from SENTRY_DSN.",
    "Webhook endpoint: https://api.example.com/hooks/stripe?env=prod (signature checked).",
    "Download the CLI from https://github.com/acme/tools/releases/download/v1.4.2/acme-linux-amd64.",
    "OAuth callback URL is https://portal.example.com/auth/callback?provider=github",
    "S3 presigned URLs expire after 15 minutes (X-Amz-Expires=900); never store them.",
    # env var names and config snippets without values
    "The app reads DATABASE_URL, REDIS_URL and SENTRY_DSN from the environment; nothing else.",
    "Set DB_PASSWORD in .env.local (git-ignored); the app reads it via os.environ['DB_PASSWORD'].",
    "STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET come from Vault path secret/data/payments/stripe.",
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must not be set in CI: we use OIDC roles.",
    "password: see 1Password (vault Engineering, item 'Staging DB')",
    "token: <paste here> is the placeholder in config.example.yml; keep it that way.",
    "api_key: ${ANALYTICS_API_KEY} in settings.yml is resolved from the environment at startup.",
    "The compose file uses POSTGRES_PASSWORD_FILE=/run/secrets/pg_password instead of a literal.",
    "client_secret: {{ .Values.oauth.clientSecret }} is templated by Helm from sealed secrets.",
    "In .npmrc we keep //registry.npmjs.org/:_authToken=${NPM_TOKEN}, never the token itself.",
    "password = os.environ['SMTP_PASSWORD'] is the pattern; no literals in settings files.",
    "secret_key_base: <%= ENV['SECRET_KEY_BASE'] %> in config/secrets.yml for the Rails app.",
    "k8s: env: - name: DB_PASSWORD valueFrom: secretKeyRef: name: orders-db key: password",
    "k8s manifest: resources: requests: cpu: 250m memory: 512Mi limits: memory: 1Gi",
    "k8s: livenessProbe: httpGet: path: /healthz port: 8080 initialDelaySeconds: 10",
    "apiVersion: apps/v1, kind: Deployment, spec.replicas: 3 for payments-api in prod.",
    "nginx: proxy_read_timeout 120s; client_max_body_size 25m; for the upload endpoint.",
    "JWT_SECRET is rotated by the platform team; services fetch it at boot, never cache on disk.",
    "GITHUB_TOKEN permissions are contents: read, packages: write in the publish workflow.",
    "token_url: https://auth.example.com/oauth2/token and scopes: orders.read orders.write",
    "max_tokens: 4096 and temperature: 0.2 for the summarizer; keep prompts under 6k tokens.",
    "auth_mode: oidc, session_ttl: 8h, cookie_secure: true in the portal config.",
    "password_min_length: 12 and password_history: 5 are the account policy settings.",
    # base64 of ordinary words
    "The health check expects the body aGVhbHRoeQ== (base64 of 'healthy').",
    "The fixture string bWVtc2l0ZQ== in tests is just base64 of 'memsite'.",
    "k8s Secret data username: YWRtaW4= is just 'admin'; the password comes from Vault.",
    # prose about passwords, tokens and keys
    "Never paste API keys into memory; put them in Vault and reference the path instead.",
    "Passwords for staging databases rotate every 30 days through the rotation Lambda.",
    "Access tokens live 15 minutes, refresh tokens 30 days; refresh rotates on every use.",
    "The secret key for session cookies is loaded from SECRET_KEY at startup.",
    "If a token leaks, revoke it in the provider console first, then rotate dependents.",
    "We store password hashes with argon2id (m=65536, t=3, p=4); bcrypt is legacy.",
    "API keys are scoped per environment; a staging key cannot call production endpoints.",
    "Private keys for TLS are issued by cert-manager and never leave the cluster.",
    "The token bucket rate limiter allows 100 requests per minute per API key.",
    "Keyboard shortcut: Cmd+K opens the command palette; the secret menu is Cmd+Shift+D.",
    "Auth is handled by the gateway; services trust the X-User-Id header only from it.",
    "The primary key of orders is (tenant_id, order_id); never query without tenant_id.",
    "Credentials for third-party sandboxes are in the team vault under sandbox/.",
    "SSH keys must be ed25519; RSA keys under 4096 bits are rejected by the bastion.",
    "The deploy key for the docs repo is read-only and owned by docs-bot.",
    "Public deploy key: ssh-ed25519 "
    "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@acme",
    "Tokenizer choice: tiktoken cl100k_base for estimates; it undercounts code by ~10%.",
    # miscellaneous ordinary facts
    "Feature branches are named feat/<ticket>-<slug>, e.g. feat/PAY-1423-partial-refunds.",
    "Cron schedule for the nightly export is 0 3 * * * (UTC), owned by data-eng.",
    "Refund webhooks may arrive twice: dedupe on the event id evt_ prefix plus created timestamp.",
    "The orders table has 48M rows; add indexes CONCURRENTLY or the deploy times out.",
    "Decision 2024-05-02: we keep REST for public APIs and use gRPC only between services.",
    "Timeouts: HTTP client 5s connect, 30s read; retries 3 with exponential backoff and jitter.",
    "The CSP header allows script-src 'self' https://js.stripe.com; nothing else.",
    "Locale files: src/locales/en-US.json and de-DE.json; keys are dot.separated.lowercase.",
    "Use TZ=UTC in every container; reports convert to Europe/Berlin only at render time.",
    "The ERP export is ISO-8859-1 encoded CSV with ; as separator and CRLF line endings.",
    "Dependabot groups minor updates weekly; majors get their own PR and a changelog review.",
    "Storybook runs on port 6006, the API on 8000, the web app on 3000.",
    "Image tags follow the pattern 2024.05.17-4f2c9e1 (date plus short SHA).",
    "The CDN caches /static/* for a year; bust caches with the content hash in file names.",
    "Idempotency keys are UUIDv4 sent in the Idempotency-Key header, kept 24 hours.",
    "Order numbers look like ORD-2024-000123; customers quote them to support.",
    "Invoice AP20240517001 failed to sync to the ERP; accounts payable ids start with AP.",
    "Artifactory is at https://artifacts.example.com/artifactory/api/pypi/pypi-remote/simple",
    "The feature flag service falls back to defaults after 200 ms; flags are cached 30 s.",
    "The regex for SKUs is ^[A-Z]{3}-\\d{4}-[A-Z0-9]{2}$ (validated in the importer).",
    "Celery queues: default, emails, exports; the exports worker has concurrency 2.",
]
