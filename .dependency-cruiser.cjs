// The project's layers, checked by dependency-cruiser (`npm run lint:deps`, part of `make lint`).
//
//   src/http -> src/operations -> src/domain -> src/infra        (never upward; operations never reach infra or http)
//   src/jobs -> src/domain -> src/infra                          background jobs: the registry and its worker
//   src/{app,service,main,worker,processLifecycle}.ts, src/cli/  the composition root: wires the layers together
//   src/config.ts, src/paths.ts                                  settings every layer may read; they import no layer
//   src/infra/db/migrations/                                     self-contained: a migration never changes under us
//   src/localnet/                                                standalone; the service reaches it through RPC only
//   sdk/<package>/src                                            its own code and the generated client, nothing else;
//                                                                sdk/react also @onboard/core (core's entry only)
//   dashboard/src                                                its own code, the generated Dashboard API helpers and
//                                                                error catalogue, @onboard/core's published entries
//
// There is no ignore list: a violation is fixed by moving code. Type-only imports count like any other import.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        "A cycle makes two modules one; split out what both need. Generated code (hey-api client) is the generator's to shape and never edited, so a cycle inside it is not ours to fix.",
      from: { pathNot: '(^|/)generated/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-between-modules',
      severity: 'error',
      comment:
        'Domain modules (folders) depend on each other in one direction, so a request walks down, not back and forth.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'infra-is-the-floor',
      severity: 'error',
      comment:
        'infra talks to the outside world (database, chain, KMS, mail) and knows nothing of the product above it.',
      from: { path: '^src/infra/' },
      to: {
        path: '^src/(domain|operations|http|cli|localnet|jobs)/|^src/(app|service|main|worker|processLifecycle|deps)\\.ts$',
      },
    },
    {
      name: 'domain-below-operations',
      severity: 'error',
      comment: 'domain holds the rules; it never depends on the handlers or the HTTP layer above it.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(operations|http|cli|localnet|jobs)/|^src/(app|service|main|worker|processLifecycle)\\.ts$' },
    },
    {
      name: 'operations-reach-down-through-context',
      severity: 'error',
      comment:
        'A handler gets what it needs from below (unit of work, limiter, caller) through its context, and depends on domain only.',
      from: { path: '^src/operations/' },
      to: { path: '^src/(infra|http|cli|localnet|jobs)/|^src/(app|service|main|worker|processLifecycle)\\.ts$' },
    },
    {
      name: 'http-below-the-root',
      severity: 'error',
      comment: 'http is wired by app.ts; it never imports the composition root.',
      from: { path: '^src/http/' },
      to: { path: '^src/(cli|localnet|jobs)/|^src/(app|service|main|worker|processLifecycle)\\.ts$' },
    },
    {
      name: 'jobs-below-the-root',
      severity: 'error',
      comment:
        'src/jobs says which background jobs exist and runs them on the queue; it uses domain and infra, never the API above.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(operations|http|cli|localnet)/|^src/(app|service|main|worker|processLifecycle)\\.ts$' },
    },
    {
      name: 'settings-import-no-layer',
      severity: 'error',
      comment: 'config.ts and paths.ts are read by every layer, so they may import none.',
      from: { path: '^src/(config|paths)\\.ts$' },
      to: {
        path: '^src/(infra|domain|operations|http|cli|localnet|jobs)/|^src/(app|service|main|worker|processLifecycle|deps)\\.ts$',
      },
    },
    {
      name: 'migrations-self-contained',
      severity: 'error',
      comment: 'A migration must read the same forever: it may import only other migration files and npm packages.',
      from: { path: '^src/infra/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/infra/db/migrations/' },
    },
    {
      name: 'localnet-standalone',
      severity: 'error',
      comment: 'localnet is a separate Stellar-RPC-compatible ledger; it imports nothing of the service.',
      from: { path: '^src/localnet/' },
      to: { path: '^src/', pathNot: '^src/localnet/' },
    },
    {
      name: 'only-the-root-starts-localnet',
      severity: 'error',
      comment: 'The service talks to localnet through RPC; only the composition root may start one in-process.',
      from: { path: '^src/', pathNot: '^src/(localnet/|service\\.ts$|cli/)' },
      to: { path: '^src/localnet/' },
    },
    {
      name: 'sdk-packages-self-contained',
      severity: 'error',
      comment:
        "An sdk package is published alone: its src imports its own src, its npm dependencies and the generated client (which its build compiles into dist). @onboard/core is such a dependency (of @onboard/react): in this repository the name resolves to core's source through tsconfig paths, and only its entry is allowed, exactly what the published package exports.",
      from: { path: '^sdk/([^/]+)/src/' },
      to: {
        path: '^(?!sdk/$1/src/|node_modules/|generated/client/)',
        pathNot: '^sdk/core/src/index\\.ts$',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'dashboard-through-generated-helpers',
      severity: 'error',
      comment:
        "The dashboard reads the Dashboard API only through the helpers generated from the spec (generated/dashboard) and knows each code's status from the one error catalogue; it uses the client library only as published (@onboard/core's entries: the package, /operator, /dev-wallet), never the service's code.",
      from: { path: '^dashboard/src/' },
      to: {
        path: '^(?!dashboard/src/|node_modules/|generated/dashboard/|generated/server/catalogue\\.gen\\.ts$)',
        pathNot: '^sdk/core/src/(index|operatorSession|devWallet)\\.ts$',
        dependencyTypesNot: ['core'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)(node_modules|dist|\\.data)/', '\\.test\\.ts$', '^tests/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
