// Channel accounts created by two instances at once: both build a creation transaction on the same sponsor's
// sequence number, so one is refused (tx_bad_seq) or fails in its ledger (op_already_exists) while the other's waits
// for its ledger. Neither instance may count that as a failure (a payout batch waiting on it would fail its claims):
// the refused one waits for the accounts to appear. And more than 19 channels are created 19 a transaction (each new
// account signs; a transaction holds 20 signatures).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { channelKeypair, ensureChannelAccounts } from '../../src/domain/funding/channels';
import { secretsFromBytes } from '../../src/infra/secrets/serviceSecret';
import { createStellarGateway, type StellarGateway } from '../../src/infra/stellar/gateway';
import { startLocalnet, type Localnet } from '../../src/localnet/index';

describe('channel accounts created by two instances at once', () => {
  let net: Localnet;
  let gw: StellarGateway;
  let closing: NodeJS.Timeout;
  const secrets = secretsFromBytes(randomBytes(32), 'test');
  const sponsor = Keypair.random();
  const gas = Keypair.random();

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    gw = createStellarGateway({ network: 'testnet', rpcUrl: net.rpcUrl, networkPassphrase: net.networkPassphrase });
    closing = setInterval(() => void net.closeLedger(), 300);
    await Promise.all([gw.fundWithFriendbot(sponsor.publicKey()), gw.fundWithFriendbot(gas.publicKey())]);
  });
  after(async () => {
    clearInterval(closing);
    await net?.stop();
  });

  /** What an instance's batch queue passes: the sponsor's signature and the gas wallet's fee-bump. */
  const seal = async (tx: Transaction) => {
    tx.sign(sponsor);
    const bump = TransactionBuilder.buildFeeBumpTransaction(gas, '1000', tx, net.networkPassphrase);
    bump.sign(gas);
    return bump;
  };

  test('both calls resolve and all 20 accounts exist, sponsored by the sponsor', async () => {
    const input = { sponsorPublicKey: sponsor.publicKey(), count: 20, seal };
    await Promise.all([ensureChannelAccounts(gw, secrets, input), ensureChannelAccounts(gw, secrets, input)]);
    const addresses = Array.from({ length: 20 }, (_, i) => channelKeypair(secrets, sponsor.publicKey(), i).publicKey());
    const accounts = await gw.loadAccounts(addresses);
    assert.equal(accounts.size, 20);
    for (const account of accounts.values()) assert.equal(account.sponsor, sponsor.publicKey());
  });
});
