// Prints the README's status table from the contract and the handler registry (tests/docs keeps the README in
// step): `npx tsx scripts/status-table.ts`.
import { operations, type OperationId } from '../generated/server/catalogue.gen';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { systemClock, type Deps } from '../src/domain/deps';
import { secretsFromBytes } from '../src/infra/secrets/serviceSecret';
import { createHandlers } from '../src/operations/index';
import { isNotImplemented } from '../src/operations/notImplemented';

export function statusRows(): { id: OperationId; route: string; status: string }[] {
  // Handlers are only inspected, never called: their dependencies are the few that factories use when built.
  const handlers = createHandlers({
    clock: systemClock,
    log: pino({ level: 'silent' }),
    secrets: secretsFromBytes(randomBytes(32), 'status table'),
  } as Deps) as Record<OperationId, unknown>;
  return (Object.keys(operations) as OperationId[])
    .sort((a, b) => operations[a].path.localeCompare(operations[b].path) || a.localeCompare(b))
    .map((id) => ({
      id,
      route: `${operations[id].method.toUpperCase()} ${operations[id].path}`,
      status: isNotImplemented(handlers[id]) ? '501' : 'built',
    }));
}

/** The README's table: one row per API group, its built operations and those answering 501. */
export function statusTable(): string[] {
  const groups = new Map<string, { built: string[]; notBuilt: string[] }>();
  for (const r of statusRows()) {
    const group = operations[r.id].group;
    const row = groups.get(group) ?? { built: [], notBuilt: [] };
    (r.status === 'built' ? row.built : row.notBuilt).push(r.id);
    groups.set(group, row);
  }
  const cell = (ids: string[]) => (ids.length ? ids.sort().join(', ') : '-');
  return [
    '| group | built | 501 NOT_IMPLEMENTED |',
    '|---|---|---|',
    ...[...groups.keys()]
      .sort()
      .map((g) => `| ${g} | ${cell(groups.get(g)!.built)} | ${cell(groups.get(g)!.notBuilt)} |`),
  ];
}

if (process.argv[1]?.endsWith('status-table.ts')) {
  for (const line of statusTable()) console.log(line);
}
