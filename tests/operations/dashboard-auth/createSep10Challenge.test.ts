// createSep10Challenge (GET /api/v1/auth/sep10/challenge): get a SEP-10 challenge to sign in with a Stellar wallet.
// Shared set-up: sep10.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks, WebAuth } from '@stellar/stellar-sdk';
import { sep10SigningKeypair } from '../../../src/domain/sep10/challenges';
import { DOMAIN, getChallenge, svc, useService } from './sep10.setup';

describe('createSep10Challenge', () => {
  useService();

  test('the challenge has the contract shape: the service as source, sequence 0, 900 s, the two manageData operations', async () => {
    const account = Keypair.random().publicKey();
    const res = await getChallenge(svc, account);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'OPERATOR_SEP10_CHALLENGE_CREATED');
    assert.equal(res.body.content.networkPassphrase, Networks.TESTNET);
    const server = sep10SigningKeypair(svc.deps.secrets).publicKey();
    // readChallengeTx checks the source, sequence 0, the operations, the domains and the service's signature
    const { tx, clientAccountID } = WebAuth.readChallengeTx(
      res.body.content.transaction,
      server,
      Networks.TESTNET,
      DOMAIN,
      DOMAIN,
    );
    assert.equal(clientAccountID, account);
    assert.equal(tx.source, server);
    assert.equal(tx.sequence, '0');
    const { minTime, maxTime } = tx.timeBounds!;
    assert.equal(Number(maxTime) - Number(minTime), 900);
    assert.ok(Math.abs(Number(minTime) - Date.now() / 1000) < 60, 'minTime is now');
    const [auth, webAuthDomain] = tx.operations as { type: string; name: string; value: Uint8Array; source?: string }[];
    const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
    assert.deepEqual([auth!.type, auth!.name, auth!.source], ['manageData', `${DOMAIN} auth`, account]);
    assert.match(text(auth!.value), /^[A-Za-z0-9+/]{64}$/);
    assert.equal(Buffer.from(text(auth!.value), 'base64').length, 48);
    assert.deepEqual(
      [webAuthDomain!.type, webAuthDomain!.name, text(webAuthDomain!.value), webAuthDomain!.source],
      ['manageData', 'web_auth_domain', DOMAIN, server],
    );
    assert.equal(tx.operations.length, 2);
    // every challenge is new
    const again = await getChallenge(svc, account);
    assert.notEqual(again.body.content.transaction, res.body.content.transaction);
  });

  test('an account with a bad checksum is refused with VALIDATION_ERROR on query.account', async () => {
    const good = Keypair.random().publicKey();
    const bad = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    const res = await getChallenge(svc, bad);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.ok(res.body.details.fieldErrors['query.account']);
  });
});
