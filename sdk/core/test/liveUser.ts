// An end user of an app signed in to the live service (tests/support/service.ts) through createOnboard, as an app's
// frontend does: an email code read from the service's dev outbox. For the client tests that run against the service.
import assert from 'node:assert/strict';
import { createOnboard, memoryStorage, type Onboard, type StorageAdapter } from '../src/index';
import { latestCode, testEmail } from '../../../tests/support/operators';
import type { TestService } from '../../../tests/support/service';

export async function signInLiveUser(
  svc: Pick<TestService, 'url' | 'dataDir'>,
  publishableKey: string,
  { email = testEmail('sdk-user'), storage = memoryStorage() }: { email?: string; storage?: StorageAdapter } = {},
): Promise<Onboard> {
  const client = createOnboard({ publishableKey, baseUrl: svc.url, storage });
  await client.ready();
  client.beginEmailLogin();
  await client.sendEmailCode(email);
  await client.verifyEmailCode(latestCode(svc, email));
  assert.equal(client.auth.get().step, 'authenticated', JSON.stringify(client.auth.get()));
  return client;
}
