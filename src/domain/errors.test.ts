import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KmsUnavailableError, MailUnavailableError } from '../infra/errors';
import { StellarUnavailableError, TransactionRejectedError } from '../infra/stellar/errors';
import { AppError, appErrorOf, DEPENDENCY_RETRY_AFTER_SECONDS } from './errors';

describe('appErrorOf: the one place infra failures become the contract', () => {
  test('an unreachable chain is 503 STELLAR_UNAVAILABLE with Retry-After, the infra error kept as the cause', () => {
    const infra = new StellarUnavailableError('getLedgerEntries failed: ECONNREFUSED');
    const mapped = appErrorOf(infra);
    assert.equal(mapped?.code, 'STELLAR_UNAVAILABLE');
    assert.equal(mapped?.status, 503);
    assert.equal(mapped?.headers['Retry-After'], String(DEPENDENCY_RETRY_AFTER_SECONDS));
    assert.equal(mapped?.cause, infra);
    assert.doesNotMatch(mapped?.message ?? '', /ECONNREFUSED/, 'the client sees no infra detail');
  });

  test('KMS and mail failures are 503 SERVICE_UNAVAILABLE, each with its own message', () => {
    const kms = appErrorOf(new KmsUnavailableError('KMS Decrypt failed (ThrottlingException)'));
    const mail = appErrorOf(new MailUnavailableError('SMTP smtp.example.test did not take the message'));
    assert.equal(kms?.code, 'SERVICE_UNAVAILABLE');
    assert.equal(mail?.code, 'SERVICE_UNAVAILABLE');
    assert.match(kms?.message ?? '', /Key management/);
    assert.match(mail?.message ?? '', /email/);
  });

  test('an AppError passes as it is; anything else is not the contract (the writer masks it as a 500)', () => {
    const own = new AppError('WALLET_NOT_FOUND');
    assert.equal(appErrorOf(own), own);
    assert.equal(appErrorOf(new Error('boom')), undefined);
    assert.equal(
      appErrorOf(
        new TransactionRejectedError('ab'.repeat(32), 'submission', { transaction: 'tx_bad_seq', operations: [] }),
      ),
      undefined,
    );
    assert.equal(appErrorOf('a string'), undefined);
  });
});
