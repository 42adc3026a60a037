// Contracts through RPC, driven only by the stock SDK: uploadContractWasm and createCustomContract built, prepared
// with rpc.Server.prepareTransaction (simulateTransaction), signed and sent; the entries read back with
// getLedgerEntries / getContractWasmByContractId; the Soroban data checks (missing data, low resource fee,
// footprint), address-credential authorization (signature, nonce) and the documented refusals of contract invocation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  Account,
  Address,
  Asset,
  Keypair,
  Operation,
  SorobanDataBuilder,
  StrKey,
  TransactionBuilder,
  authorizeEntry,
  contract,
  rpc,
  nativeToScVal,
  scValToNative,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import {
  build,
  newAccounts,
  opCodes,
  submit,
  submitOk,
  txCode,
  type TestNet,
  startTestLocalnet,
} from '../support/localnet';

/** A minimal valid WASM module: magic, version and a contractspecv0 custom section declaring `names`. */
function specWasm(names: string[]): Buffer {
  const spec = Buffer.concat(
    names.map((name) =>
      xdr.ScSpecEntry.schema.encode({
        kind: 0,
        functionV0: { doc: new xdr.XdrString(''), name: new xdr.XdrString(name), inputs: [], outputs: [] },
      }),
    ),
  );
  const leb = (n: number): Buffer => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return Buffer.from(out);
  };
  const name = Buffer.from('contractspecv0');
  const content = Buffer.concat([leb(name.length), name, spec]);
  return Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0]), leb(content.length), content]);
}

/** The network's derivation: sha256(HashIdPreimage CONTRACT_ID {networkId, fromAddress{address, salt}}). */
function expectedContractId(passphrase: string, deployer: Keypair, salt: Buffer): string {
  const networkId = createHash('sha256').update(passphrase).digest();
  const preimage = xdr.HashIdPreimage.schema.encode({
    type: 8,
    contractId: {
      networkId,
      contractIdPreimage: {
        type: 0,
        fromAddress: { address: { type: 0, accountId: { type: 0, ed25519: deployer.rawPublicKey() } }, salt },
      },
    },
  });
  return StrKey.encodeContract(createHash('sha256').update(preimage).digest());
}

describe('localnet: contracts through RPC', () => {
  let net: TestNet;
  let alice: Keypair;
  let bob: Keypair;
  before(async () => {
    net = await startTestLocalnet();
    [alice, bob] = await newAccounts(net, 2, '1000');
  });
  after(() => net?.stop());

  /** An unsigned, unprepared transaction with one operation (what a client hands to prepareTransaction). */
  async function draft(
    source: Keypair,
    op: xdr.Operation,
    opts: { fee?: string; sorobanData?: xdr.SorobanTransactionData } = {},
  ): Promise<Transaction> {
    const account = await net.server.getAccount(source.publicKey());
    return new TransactionBuilder(new Account(source.publicKey(), account.sequenceNumber()), {
      fee: opts.fee ?? '100',
      networkPassphrase: net.passphrase,
      ...(opts.sorobanData ? { sorobanData: opts.sorobanData } : {}),
    })
      .addOperation(op)
      .setTimeout(0)
      .build();
  }

  async function prepareAndRun(source: Keypair, op: xdr.Operation): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
    const prepared = await net.server.prepareTransaction(await draft(source, op));
    prepared.sign(source);
    return submitOk(net, prepared);
  }

  /** Deploys the asset's SAC unless an earlier test already did (XLM's has a single, fixed id). */
  async function ensureSac(asset: Asset): Promise<string> {
    const id = asset.contractId(net.passphrase);
    const found = await net.server
      .getContractData(id, xdr.ScVal.scvLedgerKeyContractInstance())
      .then(() => true)
      .catch(() => false);
    if (!found) await prepareAndRun(alice, Operation.createStellarAssetContract({ asset }));
    return id;
  }

  async function upload(wasm: Buffer): Promise<Buffer> {
    const got = await prepareAndRun(alice, Operation.uploadContractWasm({ wasm }));
    assert.ok(got.returnValue);
    return Buffer.from(scValToNative(got.returnValue) as Uint8Array);
  }

  test('upload WASM and create a contract: prepareTransaction, returnValue, entries with TTL, the fee charged', async () => {
    const wasm = specWasm(['hello', 'transfer']);
    const tx = await draft(alice, Operation.uploadContractWasm({ wasm }));
    const sim = await net.server.simulateTransaction(tx);
    assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
    const data = sim.transactionData.build();
    assert.equal(data.resources.footprint.readWrite.length, 1);
    assert.equal(data.resources.footprint.readWrite[0]!.type, 'contractCode');
    assert.ok(data.resources.instructions > 0 && data.resources.writeBytes > wasm.length);
    assert.equal(String(data.resourceFee), sim.minResourceFee);
    assert.ok(sim.latestLedger > 0);

    const prepared = await net.server.prepareTransaction(tx);
    prepared.sign(alice);
    const got = await submitOk(net, prepared);
    const hash = Buffer.from(scValToNative(got.returnValue!) as Uint8Array);
    assert.equal(hash.toString('hex'), createHash('sha256').update(wasm).digest('hex'));
    // charged = inclusion fee (the base fee) + the declared resource fee
    assert.equal(got.resultXdr.feeCharged, 100n + BigInt(sim.minResourceFee));

    // The meta splits the resource fee, so getFeeStats reports the Soroban inclusion fee (charged minus resources).
    const stats = await net.server.getFeeStats();
    assert.ok(Number(stats.sorobanInclusionFee.transactionCount) >= 1);
    assert.equal(stats.sorobanInclusionFee.max, '100');

    const code = await net.server.getLedgerEntries(xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash })));
    assert.equal(code.entries.length, 1);
    assert.ok((code.entries[0]!.liveUntilLedgerSeq ?? 0) > got.ledger);

    const salt = randomBytes(32);
    const created = await prepareAndRun(
      alice,
      Operation.createCustomContract({ address: new Address(alice.publicKey()), wasmHash: hash, salt }),
    );
    const contractId = Address.fromScVal(created.returnValue!).toString();
    assert.equal(contractId, expectedContractId(net.passphrase, alice, salt));
    assert.deepEqual(Buffer.from(await net.server.getContractWasmByContractId(contractId)), wasm);
    const instance = await net.server.getContractData(contractId, xdr.ScVal.scvLedgerKeyContractInstance());
    assert.ok((instance.liveUntilLedgerSeq ?? 0) > created.ledger);
    assert.deepEqual(
      contract.Spec.fromWasm(wasm)
        .funcs()
        .map((f) => f.name.toString()),
      ['hello', 'transfer'],
    );

    // Uploading the same code again succeeds and keeps one entry; creating the same contract again traps.
    assert.equal((await upload(wasm)).toString('hex'), hash.toString('hex'));
    const again = await net.server
      .prepareTransaction(
        await draft(
          alice,
          Operation.createCustomContract({ address: new Address(alice.publicKey()), wasmHash: hash, salt }),
        ),
      )
      .catch((e: unknown) => e as Error);
    assert.ok(again instanceof Error && /already exists/.test(again.message));
  });

  test('contract.Client.deploy (AssembledTransaction: simulate, sign, send, poll) deploys and returns a Client', async () => {
    const wasm = specWasm(['hello']);
    const hash = await upload(wasm);
    const salt = randomBytes(32);
    const deploy = await contract.Client.deploy(null, {
      wasmHash: hash,
      salt,
      publicKey: alice.publicKey(),
      signTransaction: contract.basicNodeSigner(alice, net.passphrase).signTransaction,
      rpcUrl: net.localnet.rpcUrl,
      allowHttp: true,
      networkPassphrase: net.passphrase,
    });
    // signAndSend polls getTransaction; ledgers close on demand here, so close them while it waits.
    const closer = setInterval(() => void net.localnet.closeLedger(), 100);
    try {
      const sent = await deploy.signAndSend();
      const client = sent.result;
      assert.equal(client.options.contractId, expectedContractId(net.passphrase, alice, salt));
      assert.deepEqual(
        client.spec.funcs().map((f) => f.name.toString()),
        ['hello'],
      );
    } finally {
      clearInterval(closer);
    }
  });

  test('createContract (v1 host function) from the source account', async () => {
    const hash = await upload(specWasm(['v1']));
    const salt = randomBytes(32);
    const fn = xdr.HostFunction.hostFunctionTypeCreateContract(
      new xdr.CreateContractArgs({
        contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
          new xdr.ContractIdPreimageFromAddress({ address: new Address(alice.publicKey()).toScAddress(), salt }),
        ),
        executable: xdr.ContractExecutable.contractExecutableWasm(hash),
      }),
    );
    const got = await prepareAndRun(alice, Operation.invokeHostFunction({ func: fn, auth: [] }));
    assert.equal(Address.fromScVal(got.returnValue!).toString(), expectedContractId(net.passphrase, alice, salt));
  });

  test('Soroban data checks: none -> txMalformed; resource fee too low -> txSorobanInvalid; write outside the footprint traps', async () => {
    const wasm = specWasm(['checks']);
    const bare = await draft(alice, Operation.uploadContractWasm({ wasm }));
    bare.sign(alice);
    const sent = await net.server.sendTransaction(bare);
    assert.equal(sent.status, 'ERROR');
    assert.equal(txCode(sent.errorResult!), 'txMalformed');

    const prepared = await net.server.prepareTransaction(await draft(alice, Operation.uploadContractWasm({ wasm })));
    const env = prepared.toEnvelope();
    assert.ok(env.type === 'envelopeTypeTx' && env.v1.tx.ext.type === 'sorobanData');
    const data = new SorobanDataBuilder(env.v1.tx.ext.sorobanData);
    const low = await draft(alice, Operation.uploadContractWasm({ wasm }), {
      fee: '1100',
      sorobanData: new SorobanDataBuilder(data.build()).setResourceFee(1000).build(),
    });
    low.sign(alice);
    const lowSent = await net.server.sendTransaction(low);
    assert.equal(lowSent.status, 'ERROR');
    assert.equal(txCode(lowSent.errorResult!), 'txSorobanInvalid');

    const noWrite = await draft(alice, Operation.uploadContractWasm({ wasm }), {
      fee: prepared.fee,
      sorobanData: new SorobanDataBuilder(data.build()).setReadWrite([]).build(),
    });
    noWrite.sign(alice);
    const failed = await submit(net, noWrite);
    assert.equal(failed.status, rpc.Api.GetTransactionStatus.FAILED);
    assert.deepEqual(opCodes(failed.resultXdr), ['invokeHostFunctionTrapped']);

    const tight = await draft(alice, Operation.uploadContractWasm({ wasm }), {
      fee: prepared.fee,
      sorobanData: new SorobanDataBuilder(data.build()).setResources(1, 0, 1).build(),
    });
    tight.sign(alice);
    const limited = await submit(net, tight);
    assert.deepEqual(opCodes(limited.resultXdr), ['invokeHostFunctionResourceLimitExceeded']);
  });

  test('create from another address: the entry to sign, its signature checked, its nonce consumed', async () => {
    const hash = await upload(specWasm(['byBob']));
    const salt = randomBytes(32);
    const op = (auth?: xdr.SorobanAuthorizationEntry[]) =>
      Operation.createCustomContract({
        address: new Address(bob.publicKey()),
        wasmHash: hash,
        salt,
        ...(auth ? { auth } : {}),
      });

    const sim = await net.server.simulateTransaction(await draft(alice, op()));
    assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
    const entry = sim.result!.auth[0]!;
    assert.equal(entry.credentials.type, 'sorobanCredentialsAddress');
    assert.equal(entry.rootInvocation.function.type, 'sorobanAuthorizedFunctionTypeCreateContractV2HostFn');

    // Unsigned: trapped at apply.
    const unsigned = await net.server.prepareTransaction(await draft(alice, op()));
    unsigned.sign(alice);
    assert.deepEqual(opCodes((await submit(net, unsigned)).resultXdr), ['invokeHostFunctionTrapped']);

    const latest = (await net.server.getLatestLedger()).sequence;
    // Signed by someone who is not bob: trapped.
    const forged = await authorizeEntry(entry, Keypair.random(), latest + 100, net.passphrase);
    const bad = await net.server.prepareTransaction(await draft(alice, op([forged])));
    bad.sign(alice);
    assert.deepEqual(opCodes((await submit(net, bad)).resultXdr), ['invokeHostFunctionTrapped']);

    const signed = await authorizeEntry(entry, bob, latest + 100, net.passphrase);
    const good = await net.server.prepareTransaction(await draft(alice, op([signed])));
    good.sign(alice);
    const got = await submitOk(net, good);
    assert.equal(Address.fromScVal(got.returnValue!).toString(), expectedContractId(net.passphrase, bob, salt));
    // The nonce is now a temporary entry of bob's: the same signed entry cannot be used again.
    const nonce = entry.credentials.type === 'sorobanCredentialsAddress' ? entry.credentials.address.nonce : 0n;
    const nonceKey = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(bob.publicKey()).toScAddress(),
        key: xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce })),
        durability: xdr.ContractDataDurability.temporary,
      }),
    );
    assert.equal((await net.server.getLedgerEntries(nonceKey)).entries.length, 1);
  });

  test('the Stellar Asset Contract of a classic asset and of XLM: deployed through prepareTransaction, id as the SDK derives it', async () => {
    const usdc = new Asset('USDC', bob.publicKey());
    for (const asset of [usdc, Asset.native()]) {
      const got = await prepareAndRun(alice, Operation.createStellarAssetContract({ asset }));
      const contractId = Address.fromScVal(got.returnValue!).toString();
      assert.equal(contractId, asset.contractId(net.passphrase));
      const instance = await net.server.getContractData(contractId, xdr.ScVal.scvLedgerKeyContractInstance());
      const val = instance.val.toXdrObject();
      assert.ok(val.type === 6 && val.contractData.val.type === 19);
      if (val.type !== 6 || val.contractData.val.type !== 19) return;
      const { executable, storage } = val.contractData.val.instance;
      assert.equal(executable.type, 1, 'CONTRACT_EXECUTABLE_STELLAR_ASSET');
      const metadata = scValToNative(xdr.ScVal.fromXdrObject(storage![0]!.val)) as Record<string, unknown>;
      assert.deepEqual(
        metadata,
        asset.isNative()
          ? { decimal: 7, name: 'native', symbol: 'native' }
          : { decimal: 7, name: `USDC:${bob.publicKey()}`, symbol: 'USDC' },
      );
      // A second deployment of the same asset's contract is refused by simulation.
      const again = await net.server.simulateTransaction(
        await draft(alice, Operation.createStellarAssetContract({ asset })),
      );
      assert.ok(rpc.Api.isSimulationError(again) && /already exists/.test(again.error));
    }
  });

  test('the Stellar Asset Contract read-only functions: decimals, name, symbol, balance by simulation and by a transaction', async () => {
    const [issuer, holder, stranger] = await newAccounts(net, 3, '100');
    const eur = new Asset('EUR', issuer.publicKey());
    await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: eur })]));
    await submitOk(
      net,
      await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: eur, amount: '12.5' })]),
    );
    await prepareAndRun(alice, Operation.createStellarAssetContract({ asset: eur }));
    const eurSac = eur.contractId(net.passphrase);
    const xlmSac = await ensureSac(Asset.native());

    const read = async (contractId: string, fn: string, args: xdr.ScVal[] = []): Promise<unknown> => {
      const sim = await net.server.simulateTransaction(
        await draft(alice, Operation.invokeContractFunction({ contract: contractId, function: fn, args })),
      );
      if (rpc.Api.isSimulationError(sim)) return new Error(sim.error);
      assert.ok(rpc.Api.isSimulationSuccess(sim));
      return scValToNative(sim.result!.retval);
    };
    const addr = (k: Keypair): xdr.ScVal => new Address(k.publicKey()).toScVal();
    assert.equal(await read(eurSac, 'decimals'), 7);
    assert.equal(await read(eurSac, 'name'), `EUR:${issuer.publicKey()}`);
    assert.equal(await read(eurSac, 'symbol'), 'EUR');
    assert.equal(await read(eurSac, 'balance', [addr(holder)]), 125_000_000n);
    assert.equal(await read(eurSac, 'balance', [addr(issuer)]), 2n ** 63n - 1n);
    assert.equal(await read(eurSac, 'balance', [new Address(eurSac).toScVal()]), 0n);
    assert.match(String(await read(eurSac, 'balance', [addr(stranger)])), /no trust line/);
    assert.equal(await read(xlmSac, 'symbol'), 'native');
    assert.equal(await read(xlmSac, 'balance', [addr(stranger)]), 1_000_000_000n);

    // The same call through a transaction: the footprint holds the instance and the trust line; returnValue.
    const got = await prepareAndRun(
      alice,
      Operation.invokeContractFunction({ contract: eurSac, function: 'balance', args: [addr(holder)] }),
    );
    assert.equal(scValToNative(got.returnValue!), 125_000_000n);

    // The admin functions and clawback are not modelled: a simulation error, opNotSupported at submission.
    const setAdminArgs = [addr(stranger)];
    assert.match(String(await read(eurSac, 'set_admin', setAdminArgs)), /"set_admin" is not modelled/);
    const sorobanData = new SorobanDataBuilder().setResourceFee(1_000_000).setResources(1_000_000, 0, 0).build();
    const tx = await draft(
      issuer,
      Operation.invokeContractFunction({ contract: eurSac, function: 'set_admin', args: setAdminArgs }),
      { fee: '1000100', sorobanData },
    );
    tx.sign(issuer);
    const sent = await net.server.sendTransaction(tx);
    assert.equal(sent.status, 'ERROR');
    assert.deepEqual(opCodes(sent.errorResult!), ['opNotSupported']);
  });

  test('SAC transfer: by the holder; by a relayer with the holder\u2019s signed entry; replayed, expired, forged entries trap; events', async () => {
    const [issuer, holder, dest, relayer] = await newAccounts(net, 4, '100');
    const gbp = new Asset('GBP', issuer.publicKey());
    for (const k of [holder, dest]) await submitOk(net, await build(net, k, [Operation.changeTrust({ asset: gbp })]));
    await submitOk(
      net,
      await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: gbp, amount: '10' })]),
    );
    const firstLedger = (await net.server.getLatestLedger()).sequence;
    await prepareAndRun(alice, Operation.createStellarAssetContract({ asset: gbp }));
    const sac = gbp.contractId(net.passphrase);
    const addr = (k: Keypair): xdr.ScVal => new Address(k.publicKey()).toScVal();
    const transfer = (amount: bigint, auth?: xdr.SorobanAuthorizationEntry[]) =>
      Operation.invokeContractFunction({
        contract: sac,
        function: 'transfer',
        args: [addr(holder), addr(dest), nativeToScVal(amount, { type: 'i128' })],
        ...(auth ? { auth } : {}),
      });
    const lineBalance = async (k: Keypair): Promise<bigint> => {
      const sim = await net.server.simulateTransaction(
        await draft(alice, Operation.invokeContractFunction({ contract: sac, function: 'balance', args: [addr(k)] })),
      );
      assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
      return scValToNative(sim.result!.retval) as bigint;
    };

    // 1. The holder as the transaction source: source-account credentials.
    await prepareAndRun(holder, transfer(10_000_000n));
    assert.equal(await lineBalance(holder), 90_000_000n);
    assert.equal(await lineBalance(dest), 10_000_000n);

    // 2. A relayer submits; the holder signs the entry simulation asked for.
    const sim = await net.server.simulateTransaction(await draft(relayer, transfer(20_000_000n)));
    assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
    const entry = sim.result!.auth[0]!;
    assert.equal(entry.credentials.type, 'sorobanCredentialsAddress');
    const latest = (await net.server.getLatestLedger()).sequence;
    const signed = await authorizeEntry(entry, holder, latest + 100, net.passphrase);
    const relayed = await net.server.prepareTransaction(await draft(relayer, transfer(20_000_000n, [signed])));
    relayed.sign(relayer);
    await submitOk(net, relayed);
    assert.equal(await lineBalance(holder), 70_000_000n);
    assert.equal(await lineBalance(dest), 30_000_000n);

    // 3. The same signed entry again: its nonce is consumed, nothing moves.
    const replay = await net.server.prepareTransaction(await draft(relayer, transfer(20_000_000n, [signed])));
    replay.sign(relayer);
    assert.deepEqual(opCodes((await submit(net, replay)).resultXdr), ['invokeHostFunctionTrapped']);

    // 4. Expired, and signed by someone else: trapped; an amount above the balance: a simulation error.
    const sim2 = await net.server.simulateTransaction(await draft(relayer, transfer(1n)));
    assert.ok(rpc.Api.isSimulationSuccess(sim2));
    const now = (await net.server.getLatestLedger()).sequence;
    const expiring = await authorizeEntry(sim2.result!.auth[0]!, holder, now, net.passphrase);
    const late = await net.server.prepareTransaction(await draft(relayer, transfer(1n, [expiring])));
    late.sign(relayer);
    await net.localnet.closeLedger();
    assert.deepEqual(opCodes((await submit(net, late)).resultXdr), ['invokeHostFunctionTrapped']);
    const forged = await authorizeEntry(sim2.result!.auth[0]!, relayer, now + 100, net.passphrase);
    const bad = await net.server.prepareTransaction(await draft(relayer, transfer(1n, [forged])));
    bad.sign(relayer);
    assert.deepEqual(opCodes((await submit(net, bad)).resultXdr), ['invokeHostFunctionTrapped']);
    const tooMuch = await net.server.simulateTransaction(await draft(holder, transfer(1_000_000_000n)));
    assert.ok(rpc.Api.isSimulationError(tooMuch) && /not sufficient/.test(tooMuch.error));
    assert.equal(await lineBalance(holder), 70_000_000n);

    // 5. The two transfers' events, through getEvents, after the classic payment's CAP-67 mint (the issuer paid the
    //    holder in firstLedger): classic and SAC events share the asset's contract id.
    const events = await net.server.getEvents({
      startLedger: firstLedger,
      filters: [{ type: 'contract', contractIds: [sac] }],
    });
    assert.deepEqual(
      events.events.map((e) => [e.topic.map((t) => scValToNative(t) as unknown), scValToNative(e.value)]),
      [
        [['mint', holder.publicKey(), `GBP:${issuer.publicKey()}`], 100_000_000n],
        ...[10_000_000n, 20_000_000n].map((amount) => [
          ['transfer', holder.publicKey(), dest.publicKey(), `GBP:${issuer.publicKey()}`],
          amount,
        ]),
      ],
    );
  });

  test('SAC mint by the admin (the issuer) and burn by the holder: balances, events; not for XLM', async () => {
    const [issuer, holder, other] = await newAccounts(net, 3, '100');
    const chf = new Asset('CHF', issuer.publicKey());
    await submitOk(net, await build(net, holder, [Operation.changeTrust({ asset: chf })]));
    await prepareAndRun(alice, Operation.createStellarAssetContract({ asset: chf }));
    const sac = chf.contractId(net.passphrase);
    const startLedger = (await net.server.getLatestLedger()).sequence;
    const addr = (k: Keypair): xdr.ScVal => new Address(k.publicKey()).toScVal();
    const amount = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: 'i128' });
    const call = (fn: string, args: xdr.ScVal[]) =>
      Operation.invokeContractFunction({ contract: sac, function: fn, args });
    const balance = async (k: Keypair): Promise<bigint> => {
      const sim = await net.server.simulateTransaction(await draft(alice, call('balance', [addr(k)])));
      assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
      return scValToNative(sim.result!.retval) as bigint;
    };

    // mint needs the admin's authorization: from anyone else, simulation asks for the issuer's signature.
    const byOther = await net.server.simulateTransaction(await draft(other, call('mint', [addr(holder), amount(5n)])));
    assert.ok(rpc.Api.isSimulationSuccess(byOther));
    const wanted = byOther.result!.auth[0]!;
    assert.equal(wanted.credentials.type, 'sorobanCredentialsAddress');
    if (wanted.credentials.type === 'sorobanCredentialsAddress') {
      assert.equal(Address.fromScAddress(wanted.credentials.address.address).toString(), issuer.publicKey());
    }
    await prepareAndRun(issuer, call('mint', [addr(holder), amount(50_000_000n)]));
    assert.equal(await balance(holder), 50_000_000n);
    await prepareAndRun(holder, call('burn', [addr(holder), amount(20_000_000n)]));
    assert.equal(await balance(holder), 30_000_000n);
    // A transfer to the issuer burns, and its event says so (the SAC's transfer_maybe_with_issuer).
    await prepareAndRun(holder, call('transfer', [addr(holder), addr(issuer), amount(1_000_000n)]));
    assert.equal(await balance(holder), 29_000_000n);
    // The issuer can neither be minted to nor burn: "operation invalid on issuer".
    for (const [fn, args] of [
      ['mint', [addr(issuer), amount(1n)]],
      ['burn', [addr(issuer), amount(1n)]],
    ] as const) {
      const sim = await net.server.simulateTransaction(await draft(issuer, call(fn, [...args])));
      assert.ok(rpc.Api.isSimulationError(sim) && /invalid on issuer/.test(sim.error), JSON.stringify(sim));
    }

    const xlm = await ensureSac(Asset.native());
    const xlmMint = await net.server.simulateTransaction(
      await draft(
        alice,
        Operation.invokeContractFunction({ contract: xlm, function: 'mint', args: [addr(holder), amount(1n)] }),
      ),
    );
    assert.ok(rpc.Api.isSimulationError(xlmMint) && /not available for the native asset/.test(xlmMint.error));

    const events = await net.server.getEvents({ startLedger, filters: [{ type: 'contract', contractIds: [sac] }] });
    assert.deepEqual(
      events.events.map((e) => [e.topic.map((t) => scValToNative(t) as unknown), scValToNative(e.value)]),
      [
        [['mint', holder.publicKey(), `CHF:${issuer.publicKey()}`], 50_000_000n],
        [['burn', holder.publicKey(), `CHF:${issuer.publicKey()}`], 20_000_000n],
        [['burn', holder.publicKey(), `CHF:${issuer.publicKey()}`], 1_000_000n],
      ],
    );
  });

  test('SAC allowances: approve and allowance; transfer_from and burn_from by a relayer; above the allowance; expiry; events', async () => {
    const [issuer, holder, dest, relayer, late] = await newAccounts(net, 5, '100');
    const jpy = new Asset('JPY', issuer.publicKey());
    for (const k of [holder, dest]) await submitOk(net, await build(net, k, [Operation.changeTrust({ asset: jpy })]));
    await submitOk(
      net,
      await build(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: jpy, amount: '10' })]),
    );
    await prepareAndRun(alice, Operation.createStellarAssetContract({ asset: jpy }));
    const sac = jpy.contractId(net.passphrase);
    const name = `JPY:${issuer.publicKey()}`;
    const startLedger = (await net.server.getLatestLedger()).sequence;
    const addr = (k: Keypair): xdr.ScVal => new Address(k.publicKey()).toScVal();
    const amount = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: 'i128' });
    const u32 = (n: number): xdr.ScVal => nativeToScVal(n, { type: 'u32' });
    const call = (fn: string, args: xdr.ScVal[]) =>
      Operation.invokeContractFunction({ contract: sac, function: fn, args });
    const read = async (fn: string, args: xdr.ScVal[]): Promise<unknown> => {
      const sim = await net.server.simulateTransaction(await draft(alice, call(fn, args)));
      if (rpc.Api.isSimulationError(sim)) return new Error(sim.error);
      assert.ok(rpc.Api.isSimulationSuccess(sim));
      return scValToNative(sim.result!.retval);
    };
    const balance = (k: Keypair) => read('balance', [addr(k)]);
    const allowance = (spender: Keypair) => read('allowance', [addr(holder), addr(spender)]);
    const latest = async (): Promise<number> => (await net.server.getLatestLedger()).sequence;

    // 1. approve, by the holder: the allowance is a temporary entry of the SAC, as the host writes it.
    assert.equal(await allowance(relayer), 0n);
    const liveUntil = (await latest()) + 1000;
    const approve = call('approve', [addr(holder), addr(relayer), amount(30_000_000n), u32(liveUntil)]);
    const approveSim = await net.server.simulateTransaction(await draft(holder, approve));
    assert.ok(rpc.Api.isSimulationSuccess(approveSim), JSON.stringify(approveSim));
    const allowanceKey = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(sac).toScAddress(),
        key: xdr.ScVal.scvVec([
          xdr.ScVal.scvSymbol('Allowance'),
          xdr.ScVal.scvMap([
            new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('from'), val: addr(holder) }),
            new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('spender'), val: addr(relayer) }),
          ]),
        ]),
        durability: xdr.ContractDataDurability.temporary,
      }),
    );
    const { readWrite } = approveSim.transactionData.build().resources.footprint;
    assert.deepEqual(
      readWrite.map((k) => k.toXdr('base64')),
      [allowanceKey.toXdr('base64')],
    );
    await prepareAndRun(holder, approve);
    assert.equal(await allowance(relayer), 30_000_000n);
    const stored = (await net.server.getLedgerEntries(allowanceKey)).entries;
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.liveUntilLedgerSeq, liveUntil);
    const data = stored[0]!.val.toXdrObject();
    assert.ok(data.type === 6);
    if (data.type === 6) {
      assert.deepEqual(scValToNative(xdr.ScVal.fromXdrObject(data.contractData.val)), {
        amount: 30_000_000n,
        live_until_ledger: liveUntil,
      });
    }

    // 2. transfer_from by the relayer, the spender (and the transaction's source): balances move, the allowance drops.
    const transferFrom = (n: bigint) => call('transfer_from', [addr(relayer), addr(holder), addr(dest), amount(n)]);
    await prepareAndRun(relayer, transferFrom(10_000_000n));
    assert.equal(await balance(holder), 90_000_000n);
    assert.equal(await balance(dest), 10_000_000n);
    assert.equal(await allowance(relayer), 20_000_000n);
    // the holder's authorization is not what counts: a transfer_from the relayer does not authorize is refused
    const unsigned = await net.server.simulateTransaction(await draft(holder, transferFrom(1n)));
    assert.ok(rpc.Api.isSimulationSuccess(unsigned));
    const wanted = unsigned.result!.auth[0]!;
    assert.equal(wanted.credentials.type, 'sorobanCredentialsAddress');
    if (wanted.credentials.type === 'sorobanCredentialsAddress') {
      assert.equal(Address.fromScAddress(wanted.credentials.address.address).toString(), relayer.publicKey());
    }

    // 3. Above the allowance: a simulation error; forced through with a smaller call's Soroban data, it traps.
    const above = await net.server.simulateTransaction(await draft(relayer, transferFrom(20_000_001n)));
    assert.ok(rpc.Api.isSimulationError(above) && /not enough allowance/.test(above.error), JSON.stringify(above));
    const fitting = await net.server.prepareTransaction(await draft(relayer, transferFrom(20_000_000n)));
    const env = fitting.toEnvelope();
    assert.ok(env.type === 'envelopeTypeTx' && env.v1.tx.ext.type === 'sorobanData');
    const forced = await draft(relayer, transferFrom(20_000_001n), {
      fee: fitting.fee,
      sorobanData: new SorobanDataBuilder(env.v1.tx.ext.sorobanData).build(),
    });
    forced.sign(relayer);
    const failed = await submit(net, forced);
    assert.equal(failed.status, rpc.Api.GetTransactionStatus.FAILED);
    assert.deepEqual(opCodes(failed.resultXdr), ['invokeHostFunctionTrapped']);
    assert.equal(await balance(holder), 90_000_000n);
    assert.equal(await balance(dest), 10_000_000n);
    assert.equal(await allowance(relayer), 20_000_000n);

    // 4. burn_from by the relayer spends the same allowance.
    await prepareAndRun(relayer, call('burn_from', [addr(relayer), addr(holder), amount(5_000_000n)]));
    assert.equal(await balance(holder), 85_000_000n);
    assert.equal(await allowance(relayer), 15_000_000n);

    // 5. An allowance expiring soon: valid through its live_until_ledger, 0 after it (the ledgers closed here).
    const soon = (await latest()) + 3;
    await prepareAndRun(holder, call('approve', [addr(holder), addr(late), amount(1_000_000n), u32(soon)]));
    while ((await latest()) < soon - 1) await net.localnet.closeLedger();
    assert.equal(await allowance(late), 1_000_000n); // simulated in ledger `soon`
    await net.localnet.closeLedger();
    assert.equal(await allowance(late), 0n);
    const expired = await net.server.simulateTransaction(
      await draft(late, call('transfer_from', [addr(late), addr(holder), addr(dest), amount(1n)])),
    );
    assert.ok(rpc.Api.isSimulationError(expired) && /not enough allowance/.test(expired.error));

    // 6. The real SAC's refusals: a negative amount, an expiration already past or beyond the max TTL, a contract.
    const now = await latest();
    const refused = async (args: xdr.ScVal[], pattern: RegExp): Promise<void> => {
      const sim = await net.server.simulateTransaction(await draft(holder, call('approve', args)));
      assert.ok(rpc.Api.isSimulationError(sim) && pattern.test(sim.error), JSON.stringify(sim));
    };
    await refused([addr(holder), addr(relayer), amount(-1n), u32(now + 10)], /negative amount/);
    await refused([addr(holder), addr(relayer), amount(1n), u32(now)], /must be >= ledger sequence/);
    await refused([addr(holder), addr(relayer), amount(1n), u32(now + 3_110_401)], /max_live_until_ledger/);
    await refused([addr(holder), new Address(sac).toScVal(), amount(1n), u32(now + 10)], /accounts \(G\.\.\.\) only/);
    // an amount of 0 clears the allowance, whatever the expiration
    await prepareAndRun(holder, call('approve', [addr(holder), addr(relayer), amount(0n), u32(0)]));
    assert.equal(await allowance(relayer), 0n);

    // 7. The events, through getEvents: approve [approve, from, spender, asset] with [amount, live_until_ledger].
    const events = await net.server.getEvents({ startLedger, filters: [{ type: 'contract', contractIds: [sac] }] });
    assert.deepEqual(
      events.events.map((e) => [e.topic.map((t) => scValToNative(t) as unknown), scValToNative(e.value)]),
      [
        [
          ['approve', holder.publicKey(), relayer.publicKey(), name],
          [30_000_000n, liveUntil],
        ],
        [['transfer', holder.publicKey(), dest.publicKey(), name], 10_000_000n],
        [['burn', holder.publicKey(), name], 5_000_000n],
        [
          ['approve', holder.publicKey(), late.publicKey(), name],
          [1_000_000n, soon],
        ],
        [
          ['approve', holder.publicKey(), relayer.publicKey(), name],
          [0n, 0],
        ],
      ],
    );
  });

  test('invoking contract code is not modelled: simulation error, opNotSupported at submission', async () => {
    const hash = await upload(specWasm(['hello']));
    const created = await prepareAndRun(
      alice,
      Operation.createCustomContract({
        address: new Address(alice.publicKey()),
        wasmHash: hash,
        salt: randomBytes(32),
      }),
    );
    const contractId = Address.fromScVal(created.returnValue!).toString();
    const invoke = Operation.invokeContractFunction({ contract: contractId, function: 'hello', args: [] });
    const sim = await net.server.simulateTransaction(await draft(alice, invoke));
    assert.ok(rpc.Api.isSimulationError(sim));
    assert.match(sim.error, /does not execute Soroban contracts/);

    const sorobanData = new SorobanDataBuilder().setResourceFee(1_000_000).setResources(1_000_000, 0, 0).build();
    const tx = await draft(alice, invoke, { fee: '1000100', sorobanData });
    tx.sign(alice);
    const sent = await net.server.sendTransaction(tx);
    assert.equal(sent.status, 'ERROR');
    assert.equal(txCode(sent.errorResult!), 'txFailed');
    assert.deepEqual(opCodes(sent.errorResult!), ['opNotSupported']);
  });
});
