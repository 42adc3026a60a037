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
import * as m0009 from './0009_users';
import * as m0010 from './0010_wallets';
import * as m0011 from './0011_oauth';
import * as m0012 from './0012_sep10';
import * as m0014 from './0014_funding';
import * as m0015 from './0015_trustline_backfill';
import * as m0016 from './0016_transactions';
import * as m0017 from './0017_wallet_sequences';
import * as m0018 from './0018_chain_data';
import * as m0019 from './0019_webhooks';
import * as m0020 from './0020_own_submissions';
import * as m0021 from './0021_webhook_ed25519';
import * as m0022 from './0022_external_wallets';
import * as m0023 from './0023_metrics_indexes';
import * as m0024 from './0024_auth_policy_rows';
import * as m0025 from './0025_distribution';
import * as m0026 from './0026_distribution_pushes';
import * as m0027 from './0027_distribution_claim_series';
import * as m0028 from './0028_kyc';
import * as m0029 from './0029_ramps';
import * as m0030 from './0030_gate_change_notify';
import * as m0031 from './0031_dpop_jtis_unlogged';
import * as m0032 from './0032_session_change_notify';
import * as m0033 from './0033_wallet_sequence_unique';

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
  { name: '0009_users', ...m0009 },
  { name: '0010_wallets', ...m0010 },
  { name: '0011_oauth', ...m0011 },
  { name: '0012_sep10', ...m0012 },
  { name: '0014_funding', ...m0014 },
  { name: '0015_trustline_backfill', ...m0015 },
  { name: '0016_transactions', ...m0016 },
  { name: '0017_wallet_sequences', ...m0017 },
  { name: '0018_chain_data', ...m0018 },
  { name: '0019_webhooks', ...m0019 },
  { name: '0020_own_submissions', ...m0020 },
  { name: '0021_webhook_ed25519', ...m0021 },
  { name: '0022_external_wallets', ...m0022 },
  { name: '0023_metrics_indexes', ...m0023 },
  { name: '0024_auth_policy_rows', ...m0024 },
  { name: '0025_distribution', ...m0025 },
  { name: '0026_distribution_pushes', ...m0026 },
  { name: '0027_distribution_claim_series', ...m0027 },
  { name: '0028_kyc', ...m0028 },
  { name: '0029_ramps', ...m0029 },
  { name: '0030_gate_change_notify', ...m0030 },
  { name: '0031_dpop_jtis_unlogged', ...m0031 },
  { name: '0032_session_change_notify', ...m0032 },
  { name: '0033_wallet_sequence_unique', ...m0033 },
];
