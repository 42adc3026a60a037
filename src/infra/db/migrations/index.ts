// Every migration, in order. A migration is never edited once it has landed on main: add a new one.
import type { Knex } from 'knex';
import * as m0001 from './0001_service_meta';
import * as m0002 from './0002_apps_and_keys';
import * as m0003 from './0003_limits';
import * as m0004 from './0004_sessions';
import * as m0005 from './0005_email_codes';
import * as m0006 from './0006_dashboard_apps';
import * as m0007 from './0007_api_key_rotation';
import * as m0008 from './0008_idempotency_keys';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

export const migrations: Migration[] = [
  { name: '0001_service_meta', ...m0001 },
  { name: '0002_apps_and_keys', ...m0002 },
  { name: '0003_limits', ...m0003 },
  { name: '0004_sessions', ...m0004 },
  { name: '0005_email_codes', ...m0005 },
  { name: '0006_dashboard_apps', ...m0006 },
  { name: '0007_api_key_rotation', ...m0007 },
  { name: '0008_idempotency_keys', ...m0008 },
];
