// Friendbot as stellar/friendbot does it: a pool of "minion" channel accounts submits the funding transactions
// (one queued transaction per source account per ledger), each operation sourced from the bot account (here the
// network's root account) and signed by both. A new address gets createAccount with 10,000 XLM; an existing one
// below that gets a payment of 10,000 XLM; one at or above it gets 400 "account already funded to starting balance".
// The answer waits for the ledger that applies the transaction: 200 {successful, hash, envelope_xdr}.
// Minion keys are derived from the passphrase (the root key is public anyway), so they survive restarts.
import { Account, Asset, Keypair, Operation, StrKey, TransactionBuilder, hash, xdr } from '@stellar/stellar-sdk';
import type { AppliedTransaction, LedgerEngine } from '../engine';

/** 10,000 XLM in stroops. */
export const FRIENDBOT_STARTING_BALANCE = 100_000_000_000n;
const MINION_BALANCE = '100'; // XLM: fees only
const DEFAULT_MINIONS = 8;

export interface FriendbotAnswer {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
}

export interface FriendbotDeps {
  engine: LedgerEngine;
  /** Resolves once a closed ledger holds the transaction (closes one itself when ledgers close on demand). */
  waitForTransaction(hash: string): Promise<AppliedTransaction>;
  /** Resolves at the next ledger close (closes one itself when ledgers close on demand). */
  nextClose(): Promise<unknown>;
  log: (msg: string) => void;
}

const PROBLEM = 'application/problem+json; charset=utf-8';
const HAL = 'application/hal+json; charset=utf-8';

function problem(
  status: number,
  title: string,
  detail: string,
  extras?: Record<string, unknown>,
  type = 'bad_request',
): FriendbotAnswer {
  return {
    status,
    contentType: PROBLEM,
    body: { type: `https://stellar.org/horizon-errors/${type}`, title, status, detail, ...(extras ? { extras } : {}) },
  };
}

function invalidAddress(reason: string): FriendbotAnswer {
  return problem(400, 'Bad Request', 'The request you sent was invalid in some way.', {
    invalid_field: 'addr',
    reason,
  });
}

function serverError(detail: string): FriendbotAnswer {
  return problem(500, 'Internal Server Error', detail, undefined, 'server_error');
}

/** stellar/friendbot's answer when createAccount lost a race (ALREADY_EXIST), with the result XDR it matches. */
const CREATE_ACCOUNT_ALREADY_EXIST_XDR = 'AAAAAAAAAGT/////AAAAAQAAAAAAAAAA/////AAAAAA=';

function accountKey(address: string): string {
  return xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() }),
  ).toXdr('base64');
}

export class Friendbot {
  private readonly root: Keypair;
  private readonly minions: Keypair[];
  private readonly busy = new Set<number>();
  private readonly freed: (() => void)[] = [];
  private ready: Promise<void> | undefined;

  constructor(
    private readonly deps: FriendbotDeps,
    minionCount = DEFAULT_MINIONS,
  ) {
    this.root = deps.engine.rootKeypair();
    const passphrase = deps.engine.networkPassphrase;
    this.minions = Array.from({ length: minionCount }, (_, i) =>
      Keypair.fromRawEd25519Seed(hash(Buffer.from(`onboard localnet friendbot minion ${i} | ${passphrase}`))),
    );
  }

  /**
   * 1. validate the address (G... only: localnet runs no contracts, so C... addresses cannot be funded)
   * 2. refuse an account already at 10,000 XLM 3. submit createAccount or payment from a free minion
   * 4. wait for the ledger that applies it 5. answer like stellar/friendbot.
   */
  async fund(addr: string | undefined): Promise<FriendbotAnswer> {
    const address = addr ?? '';
    if (StrKey.isValidContract(address)) {
      return invalidAddress('contract addresses are not supported: localnet does not execute contracts');
    }
    if (!StrKey.isValidEd25519PublicKey(address))
      return invalidAddress('invalid address: must be a valid G or C address');

    const balance = this.nativeBalance(address);
    if (balance !== undefined && balance >= FRIENDBOT_STARTING_BALANCE)
      return problem(400, 'Bad Request', 'account already funded to starting balance');

    try {
      await this.ensureMinions();
      const minion = await this.acquireMinion();
      try {
        // The bot (root) account is the operation source; the minion is the transaction source.
        const source = this.root.publicKey();
        const op =
          balance === undefined
            ? Operation.createAccount({ destination: address, startingBalance: '10000', source })
            : Operation.payment({ destination: address, asset: Asset.native(), amount: '10000', source });
        const applied = await this.submitAndWait(this.minions[minion]!, [op], [this.root]);
        if (applied.successful)
          return {
            status: 200,
            contentType: HAL,
            body: { successful: true, hash: applied.hash, envelope_xdr: applied.envelopeXdr },
          };
        if (balance === undefined && this.isCreateAccountAlreadyExist(applied.resultXdr)) {
          return problem(400, 'Bad Request', `createAccountAlreadyExist (${CREATE_ACCOUNT_ALREADY_EXIST_XDR})`);
        }
        return serverError(`the funding transaction ${applied.hash} failed: ${applied.resultXdr}`);
      } finally {
        this.releaseMinion(minion);
      }
    } catch (err) {
      this.deps.log(`friendbot: ${err instanceof Error ? err.message : String(err)}`);
      return serverError(err instanceof Error ? err.message : String(err));
    }
  }

  private isCreateAccountAlreadyExist(resultXdr: string): boolean {
    const result = xdr.TransactionResult.fromXdr(resultXdr, 'base64').result;
    if (result.type !== 'txFailed') return false;
    const op = result.results[0];
    return (
      op?.type === 'opInner' &&
      op.tr.type === 'createAccount' &&
      op.tr.createAccountResult.type === 'createAccountAlreadyExist'
    );
  }

  private nativeBalance(address: string): bigint | undefined {
    const entry = this.deps.engine.getLedgerEntry(accountKey(address));
    if (!entry) return undefined;
    const data = xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64');
    return data.type === 'account' ? data.account.balance : undefined;
  }

  private sequenceOf(address: string): string | undefined {
    const entry = this.deps.engine.getLedgerEntry(accountKey(address));
    if (!entry) return undefined;
    const data = xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64');
    return data.type === 'account' ? data.account.seqNum.toString() : undefined;
  }

  /**
   * Submits from `source` and waits for the ledger. The source may have another transaction queued (someone else
   * using the root account, say): TRY_AGAIN_LATER then means "after the next close", so wait one and retry.
   */
  private async submitAndWait(
    source: Keypair,
    ops: xdr.Operation[],
    extraSigners: Keypair[],
  ): Promise<AppliedTransaction> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const seq = this.sequenceOf(source.publicKey());
      if (seq === undefined) throw new Error(`friendbot account ${source.publicKey()} does not exist`);
      const builder = new TransactionBuilder(new Account(source.publicKey(), seq), {
        fee: String(this.deps.engine.baseFee),
        networkPassphrase: this.deps.engine.networkPassphrase,
      });
      for (const op of ops) builder.addOperation(op);
      const tx = builder.setTimeout(0).build();
      tx.sign(source, ...extraSigners);
      const submitted = this.deps.engine.submit(tx.toXDR());
      if (submitted.status === 'PENDING' || submitted.status === 'DUPLICATE')
        return this.deps.waitForTransaction(submitted.hash);
      if (submitted.status === 'ERROR')
        throw new Error(`funding transaction refused: ${submitted.errorResultXdr ?? 'no result'}`);
      await this.deps.nextClose();
    }
    throw new Error(`${source.publicKey()} stayed busy: try again later`);
  }

  /**
   * Creates the minion accounts on first use, from the root account: in one transaction, or in as many as a ledger
   * of few operations needs (a localnet started with a small maxTxSetSize to show congestion).
   */
  private ensureMinions(): Promise<void> {
    this.ready ??= (async () => {
      const missing = this.minions.filter((m) => this.sequenceOf(m.publicKey()) === undefined);
      const perTx = this.deps.engine.maxTxSetSize;
      for (let i = 0; i < missing.length; i += perTx) {
        const ops = missing
          .slice(i, i + perTx)
          .map((m) => Operation.createAccount({ destination: m.publicKey(), startingBalance: MINION_BALANCE }));
        const applied = await this.submitAndWait(this.root, ops, []);
        if (!applied.successful)
          throw new Error(`could not create the friendbot minion accounts: ${applied.resultXdr}`);
      }
    })().catch((err: unknown) => {
      this.ready = undefined; // let the next request try again
      throw err;
    });
    return this.ready;
  }

  private async acquireMinion(): Promise<number> {
    for (;;) {
      for (let i = 0; i < this.minions.length; i++) {
        if (!this.busy.has(i)) {
          this.busy.add(i);
          return i;
        }
      }
      await new Promise<void>((resolve) => this.freed.push(resolve));
    }
  }

  private releaseMinion(i: number): void {
    this.busy.delete(i);
    this.freed.shift()?.();
  }
}
