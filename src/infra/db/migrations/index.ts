// Every migration, in order. A migration is never edited once it has landed on main: add a new one.
import type { Knex } from 'knex';
import * as m0001 from './0001_service_meta';
import * as m0002 from './0002_apps_and_keys';
import * as m0003 from './0003_limits';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

export const migrations: Migration[] = [
  { name: '0001_service_meta', ...m0001 },
  { name: '0002_apps_and_keys', ...m0002 },
  { name: '0003_limits', ...m0003 },
];
