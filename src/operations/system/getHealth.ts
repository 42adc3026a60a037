import type { Deps } from '../../domain/deps';
import type { Handler } from '../types';

/** Liveness: the process answers. Checks nothing else (see getReadiness). */
export function getHealth(deps: Pick<Deps, 'clock' | 'version' | 'startedAt'>): Handler<'getHealth'> {
  return async () => ({
    content: {
      status: 'ok',
      version: deps.version,
      uptimeSeconds: Math.max(0, Math.floor((deps.clock.now().getTime() - deps.startedAt.getTime()) / 1000)),
    },
  });
}
