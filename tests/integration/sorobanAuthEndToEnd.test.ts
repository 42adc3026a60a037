// Issue 18's end to end, on the real service and its localnet, through the stock @stellar/stellar-sdk only: an app
// allows `transfer` on a token's Stellar Asset Contract (an auth policy row created with its secret key); a relayer
// (any other account, as an app backend would be) simulates a SAC transfer from the user's custodial wallet, the
// user's session gets the simulated auth entry signed by the service (POST /v1/tx/sign-auth-entry), the relayer
// submits the invocation with it and the balances move. A function the row does not list (`burn`) and another asset's
// SAC are refused with their SOROBAN_AUTH_* code and nothing moves; the signed entry submitted again is refused by
// localnet (its nonce is used) and nothing moves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Address,
  Keypair,
  Operation,
  TransactionBuilder,
  nativeToScVal,
  rpc,
  scValToNative,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { parseAsset } from '../../src/infra/stellar/gateway';
import type { SeededCredentials } from '../support/credentials';
import { appWithWallet, gatewayOf, issuer, payFromIssuer } from '../support/funding';
import { call } from '../support/http';
import { opCodes, submit, submitOk, type TestNet } from '../support/localnet';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

let svc: TestService;
let net: TestNet;
let app: App;
let creds: SeededCredentials;
let user: UserClient;
let wallet: string;
let relayer: Keypair;
let dest: Keypair;
let eur: string;
let gbp: string;
let eurSac: string;
let gbpSac: string;

const addr = (account: string): xdr.ScVal => new Address(account).toScVal();
const i128 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: 'i128' });

/** An unsigned, unprepared transaction of the relayer with one operation (what it hands to simulation). */
async function draft(op: xdr.Operation): Promise<Transaction> {
  const account = await net.server.getAccount(relayer.publicKey());
  return new TransactionBuilder(new Account(relayer.publicKey(), account.sequenceNumber()), {
    fee: '100',
    networkPassphrase: net.passphrase,
  })
    .addOperation(op)
    .setTimeout(0)
    .build();
}

const invoke = (contract: string, fn: string, args: xdr.ScVal[], auth?: xdr.SorobanAuthorizationEntry[]) =>
  Operation.invokeContractFunction({ contract, function: fn, args, ...(auth ? { auth } : {}) });

/** The SAC's `balance` of `account`, by simulation. */
async function sacBalance(contract: string, account: string): Promise<bigint> {
  const sim = await net.server.simulateTransaction(await draft(invoke(contract, 'balance', [addr(account)])));
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
  return scValToNative(sim.result!.retval) as bigint;
}

async function balances(): Promise<Record<string, bigint>> {
  return {
    walletEur: await sacBalance(eurSac, wallet),
    destEur: await sacBalance(eurSac, dest.publicKey()),
    walletGbp: await sacBalance(gbpSac, wallet),
    destGbp: await sacBalance(gbpSac, dest.publicKey()),
  };
}

/** The relayer simulates `fn` on `contract`: the one entry it asks the wallet to sign (base64). */
async function entryToSign(contract: string, fn: string, args: xdr.ScVal[]): Promise<string> {
  const sim = await net.server.simulateTransaction(await draft(invoke(contract, fn, args)));
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
  const auth = sim.result!.auth;
  assert.equal(auth.length, 1);
  const entry = auth[0]!;
  assert.ok(entry.credentials.type === 'sorobanCredentialsAddress', entry.credentials.type);
  assert.equal(Address.fromScAddress(entry.credentials.address.address).toString(), wallet);
  return entry.toXDR('base64');
}

/** The relayer prepares (simulates with the signed entry) and signs the invocation. */
async function relay(contract: string, fn: string, args: xdr.ScVal[], signedEntry: string): Promise<Transaction> {
  const entry = xdr.SorobanAuthorizationEntry.fromXDR(signedEntry, 'base64');
  const prepared = await net.server.prepareTransaction(await draft(invoke(contract, fn, args, [entry])));
  prepared.sign(relayer);
  return prepared;
}

const signAuthEntry = (entry: string) =>
  user.call('signAuthEntry', 'POST', '/v1/tx/sign-auth-entry', { body: { entry } });

function assertDenied(res: { status: number; text: string; body: any }, code: string) {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, code);
  assert.equal(res.body.applicationId, app.id);
  assert.equal(res.body.applicationName, app.name);
}

describe('Soroban auth end to end: allowlisted SAC transfer relayed with the service-signed entry', () => {
  before(async () => {
    svc = await startTestService({}, { closeLedgersEveryMs: 200 });
    const localnet = svc.localnet!;
    net = {
      localnet,
      server: new rpc.Server(localnet.rpcUrl, { allowHttp: true }),
      root: Keypair.master(localnet.networkPassphrase),
      passphrase: localnet.networkPassphrase,
      stop: async () => undefined,
    };
    const issued = await issuer(svc, ['EUR', 'GBP']);
    [eur, gbp] = issued.assets as [string, string];
    // The app's wallets trust both assets at activation (Immediate mode: funded at sign-in).
    ({ creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'immediate', assets: [eur, gbp] } }));
    user = await signInUser(svc, creds);
    assert.equal(user.signIn.wallet.funded, true, JSON.stringify(user.signIn.wallet));
    wallet = user.signIn.wallet.publicKey;
    await payFromIssuer(svc, issued.keypair, wallet, eur, '100');
    await payFromIssuer(svc, issued.keypair, wallet, gbp, '100');

    // The relayer (pays the fees) and the receiver (trusts both assets): plain accounts of the network.
    ({ keypair: relayer } = await issuer(svc, []));
    ({ keypair: dest } = await issuer(svc, []));
    const gw = gatewayOf(svc);
    const account = (await gw.loadAccount(dest.publicKey()))!;
    const trust = new TransactionBuilder(new Account(dest.publicKey(), account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(Operation.changeTrust({ asset: parseAsset(eur) }))
      .addOperation(Operation.changeTrust({ asset: parseAsset(gbp) }))
      .setTimeout(60)
      .build();
    trust.sign(dest);
    await gw.submitAndConfirm(trust);

    // Both SACs, deployed by the relayer with the stock SDK.
    for (const asset of [eur, gbp]) {
      const prepared = await net.server.prepareTransaction(
        await draft(Operation.createStellarAssetContract({ asset: parseAsset(asset) })),
      );
      prepared.sign(relayer);
      await submitOk(net, prepared);
    }
    eurSac = parseAsset(eur).contractId(net.passphrase);
    gbpSac = parseAsset(gbp).contractId(net.passphrase);

    // The app allows `transfer` on EUR's SAC, and nothing else.
    const row = await call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', {
      headers: { 'x-service-api-key': creds.secretKey },
      body: { contract: eurSac, functions: ['transfer'], label: 'EUR transfers', enabled: true },
    });
    assert.equal(row.status, 201, row.text);
  });
  after(async () => {
    await svc?.stop();
  });

  test('allowed: the balances move; not allowed (function, contract) and replayed: refused, nothing moves', async () => {
    assert.deepEqual(await balances(), {
      walletEur: 1_000_000_000n,
      destEur: 0n,
      walletGbp: 1_000_000_000n,
      destGbp: 0n,
    });

    // 1. transfer 25 EUR: simulated by the relayer, signed by the service for the user, relayed: it moves.
    const transferArgs = [addr(wallet), addr(dest.publicKey()), i128(250_000_000n)];
    const signed = await signAuthEntry(await entryToSign(eurSac, 'transfer', transferArgs));
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.body.code, 'SOROBAN_AUTH_ENTRY_SIGNED');
    assert.equal(signed.body.content.publicKey, wallet);
    const signedEntry: string = signed.body.content.signedEntry;
    await submitOk(net, await relay(eurSac, 'transfer', transferArgs, signedEntry));
    const moved = { walletEur: 750_000_000n, destEur: 250_000_000n, walletGbp: 1_000_000_000n, destGbp: 0n };
    assert.deepEqual(await balances(), moved);
    // the classic trust line says the same, through the user's own API
    const held = await user.call('getWalletBalances', 'GET', '/v1/wallet/balances');
    assert.equal(held.status, 200, held.text);
    assert.equal(held.body.content.balances.find((b: { asset: string }) => b.asset === eur)?.balance, '75');

    // 2. a function the row does not list: burn on the same SAC.
    const burn = await signAuthEntry(await entryToSign(eurSac, 'burn', [addr(wallet), i128(10_000_000n)]));
    assertDenied(burn, 'SOROBAN_AUTH_FUNCTION_NOT_ALLOWED');
    assert.match(burn.body.message, /"burn"/);

    // 3. a contract no row names: the same transfer on GBP's SAC.
    const other = await signAuthEntry(await entryToSign(gbpSac, 'transfer', transferArgs));
    assertDenied(other, 'SOROBAN_AUTH_CONTRACT_NOT_ALLOWED');
    assert.match(other.body.message, new RegExp(gbpSac));
    assert.deepEqual(await balances(), moved);

    // 4. the signed entry again: localnet refuses it (its nonce is used), nothing moves.
    const replay = await submit(net, await relay(eurSac, 'transfer', transferArgs, signedEntry));
    assert.equal(replay.status, rpc.Api.GetTransactionStatus.FAILED);
    assert.deepEqual(opCodes(replay.resultXdr), ['invokeHostFunctionTrapped']);
    assert.deepEqual(await balances(), moved);
  });
});
