# Onboard: every command goes through npm scripts so it runs on the project's own Node 24 (node_modules/.bin/node).
.PHONY: run cluster faults test spec generate check-generated mock lint bench localnet clean

# npm ci installs exactly the lockfile; it reruns only when the lockfile changes (editing a script in package.json
# does not wipe node_modules).
node_modules/.installed: package-lock.json
	@echo "installing the project's dependencies with npm ci (about a minute on a fresh clone; Node 24 comes with them)..."
	npm ci --no-audit --no-fund --foreground-scripts
	@touch $@

# The operators' dashboard (dashboard/, served at /dashboard) is rebuilt when its sources, the generated query helpers
# or the client library's sources (which its vite config compiles in) changed. A checkout without dashboard sources
# starts without it (the service then says it is not built).
DASHBOARD_SOURCES := $(shell find dashboard/src dashboard/public dashboard/index.html dashboard/vite.config.ts generated/dashboard sdk/core/src -type f 2>/dev/null)
DASHBOARD_BUILD := $(if $(wildcard dashboard/vite.config.ts),dashboard/dist/index.html)

dashboard/dist/index.html: node_modules/.installed $(DASHBOARD_SOURCES)
	npm run dashboard:build

run: node_modules/.installed $(DASHBOARD_BUILD)
	npm run start

# Three API processes and two workers on one embedded PostgreSQL and localnet, behind a readiness-aware proxy on
# http://127.0.0.1:3000 (docs/production.md).
cluster: node_modules/.installed $(DASHBOARD_BUILD)
	npm run cluster

# The fault tests in full (the test suite runs them with short outages): processes killed mid-flight, the RPC cut for
# 30 s, the cluster; each ends with the bank check (tests/support/bankCheck.ts).
faults: node_modules/.installed
	FAULT_RPC_OUTAGE_MS=30000 npm test -- --only='tests/{faults/*,integration/{fundingRecovery,distributionCrash,distributionPushCrash,dpopReplayCrash,shutdown}}.test.ts'

# The whole check, as CI runs it: lint first (contract, generated code, types, ESLint, format, layers), then the tests.
test: node_modules/.installed lint
	npm test

spec: node_modules/.installed
	npm run spec

generate: node_modules/.installed
	npm run generate

check-generated: node_modules/.installed
	npm run check-generated

mock: node_modules/.installed
	npm run spec
	npm run mock

# Contract lint (redocly, Spectral OWASP), the breaking-change check against the last release (Optic; it also fails
# when docs/api-changelog.md is stale), generated code in step with openapi/, types, ESLint (type-checked rules,
# no any), Prettier, and the dependency rules of .dependency-cruiser.cjs (layers, no cycles). check-generated comes
# first (it bundles the contract the others read); the rest are independent and run two at a time (two cores), the
# longest (ESLint) first. The typecheck uses TypeScript 7's native compiler (the `typescript-7` alias: the whole tree
# in seconds instead of half a minute); typescript-eslint's type-aware rules still need the JavaScript compiler,
# TypeScript 5.9 (`typescript`). ESLint and Prettier keep caches in node_modules/.cache, so a second run checks only
# what changed; CI's clean clone has none.
LINT_CHECKS := lint-code lint-owasp lint-format lint-types lint-spec lint-spec-diff lint-deps
.PHONY: $(LINT_CHECKS)
lint: node_modules/.installed
	npm run -s check-generated
	$(MAKE) --no-print-directory -j2 --output-sync=target $(LINT_CHECKS)
lint-spec:
	npm run -s spec:lint
lint-owasp:
	npx tsx scripts/spec.ts owasp
lint-spec-diff:
	npm run -s spec:diff -- --check
lint-types:
	npm run -s typecheck
lint-code:
	npm run -s lint:code
lint-format:
	npm run -s format:check
lint-deps:
	npm run -s lint:deps

bench: node_modules/.installed
	npm run bench

clean:
	rm -rf .data node_modules

# A standalone local Stellar network (RPC on :8000); ARGS="--ledger-seconds manual" etc. are passed through.
localnet: node_modules/.installed
	npm run localnet -- $(ARGS)
