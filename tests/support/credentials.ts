// Credentials for each security scheme, used by the contract harness and the integration tests.
// `seedCredentials(db)` stores real ones through the domain code (an operator, an active testnet app, one publishable
// and one secret key), so they pass the gate's lookup; `sampleCredentials` are of the right form only, for the Prism
// mock (which checks presence) and for tests that want an unknown key. Sessions and DPoP proofs are form-only until
// the sessions issue (#5).
import type { Knex } from 'knex';
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { addAppOrigins, createApp, createOperator, type App, type Operator } from '../../src/domain/apps/store';
import { withTx } from '../../src/infra/db/database';

export interface Credentials {
  secretKey: string;
  publishableKey: string;
  accessToken: string;
  dpopProof: string;
}

const RANDOM = 'TestOnlyNotARealKey0000000000000';

/** Right form, never stored: the gate answers API_KEY_NOT_FOUND to these keys. */
export const sampleCredentials: Credentials = {
  secretKey: `sec_testnet_${RANDOM}`,
  publishableKey: `pub_testnet_${RANDOM}`,
  accessToken: 'test-only.access.token',
  dpopProof: 'eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJ0ZXN0Ijp0cnVlfQ.c2lnbmF0dXJl',
};

export interface SeededCredentials extends Credentials {
  operator: Operator;
  app: App;
  secretKeyId: string;
  publishableKeyId: string;
  /** Origins stored as allowed for the app. */
  origins: string[];
}

let seeded = 0;

/** Stores an operator, an active testnet app (with allowed origins) and one key of each type; returns them. */
export async function seedCredentials(db: Knex, opts: { origins?: string[]; name?: string } = {}): Promise<SeededCredentials> {
  const origins = opts.origins ?? ['https://app.example.com'];
  return withTx(db, async (trx) => {
    seeded += 1;
    const operator = await createOperator(trx, { email: `owner-${process.pid}-${Date.now()}-${seeded}@example.com` });
    const app = await createApp(trx, { name: opts.name ?? 'Test app', network: 'testnet', ownerOperatorId: operator.id });
    await addAppOrigins(trx, app.id, origins);
    const secret = await createApiKey(trx, { appId: app.id, type: 'secret', network: 'testnet', label: 'test secret' });
    const publishable = await createApiKey(trx, { appId: app.id, type: 'publishable', network: 'testnet', label: 'test publishable' });
    return {
      ...sampleCredentials,
      secretKey: secret.key,
      publishableKey: publishable.key,
      operator,
      app,
      secretKeyId: secret.id,
      publishableKeyId: publishable.id,
      origins,
    };
  });
}

/** Headers satisfying one security requirement (a list of scheme names that must all pass). */
export function headersFor(requirement: readonly string[], credentials: Credentials = sampleCredentials): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const scheme of requirement as SecuritySchemeName[]) {
    switch (scheme) {
      case 'secretKey':
        headers['x-service-api-key'] = credentials.secretKey;
        break;
      case 'publishableKey':
        headers['x-service-api-key'] = credentials.publishableKey;
        break;
      case 'userSession':
      case 'operatorSession':
        headers.authorization = `DPoP ${credentials.accessToken}`;
        break;
      case 'dpopProof':
        headers.dpop = credentials.dpopProof;
        break;
    }
  }
  return headers;
}
