// Credentials of the right form for each security scheme, used by the contract harness and the integration tests.
// They pass the gate's form checks; the keys and sessions issues replace them with real, stored credentials.
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';

const RANDOM = 'TestOnlyNotARealKey0000000000000';

export const sampleCredentials = {
  secretKey: `sec_testnet_${RANDOM}`,
  publishableKey: `pub_testnet_${RANDOM}`,
  accessToken: 'test-only.access.token',
  dpopProof: 'eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJ0ZXN0Ijp0cnVlfQ.c2lnbmF0dXJl',
};

/** Headers satisfying one security requirement (a list of scheme names that must all pass). */
export function headersFor(requirement: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const scheme of requirement as SecuritySchemeName[]) {
    switch (scheme) {
      case 'secretKey':
        headers['x-service-api-key'] = sampleCredentials.secretKey;
        break;
      case 'publishableKey':
        headers['x-service-api-key'] = sampleCredentials.publishableKey;
        break;
      case 'userSession':
      case 'operatorSession':
        headers.authorization = `DPoP ${sampleCredentials.accessToken}`;
        break;
      case 'dpopProof':
        headers.dpop = sampleCredentials.dpopProof;
        break;
    }
  }
  return headers;
}
