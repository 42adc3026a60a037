// What the KYC tests share: a user of a new app, a sandbox verification started through the SDK API, the developer's
// decision posted to the sandbox page as a browser posts its form, and a session made to have expired.
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { seedCredentials, type SeededCredentials } from './credentials';
import type { TestService } from './service';
import { signInUser, type UserClient } from './users';

/** A new testnet app (seeded keys, its KYC settings never saved) and a user signed in to it. */
export async function kycAppUser(
  svc: TestService,
  appName = 'KYC app',
): Promise<{ creds: SeededCredentials; user: UserClient }> {
  const creds = await seedCredentials(svc.deps.db, { name: appName });
  return { creds, user: await signInUser(svc, creds) };
}

/** startKycSession with the sandbox provider (201 asserted); its content. */
export async function startSandboxKyc(
  user: UserClient,
  level = 'basic',
): Promise<{ sessionId: string; verificationId: string; kycUrl: string; expiresAt: string }> {
  const res = await user.call('startKycSession', 'POST', '/v1/kyc/sessions', {
    body: { providerId: 'sandbox', level },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

/** The sandbox page's form posted with `decision` (any string, to test refusals). */
export const postSandboxDecision = (kycUrl: string, decision: string): Promise<Response> =>
  fetch(kycUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision }).toString(),
  });

/** The developer approves or rejects on the sandbox page (200 asserted). */
export async function decideSandboxKyc(kycUrl: string, decision: 'approved' | 'rejected'): Promise<void> {
  const res = await postSandboxDecision(kycUrl, decision);
  assert.equal(res.status, 200, await res.text());
}

/** The verification's session expired a second ago. */
export const expireKycSession = (db: Knex, verificationId: string) =>
  db('kyc_verifications')
    .where({ id: verificationId })
    .update({ session_expires_at: new Date(Date.now() - 1000) });
