// localnet's state on disk, so accounts survive restarts (`make run`, `npm run localnet -- --data-dir ...`):
//   engine.json    the engine snapshot (all ledger entries and the latest header), rewritten atomically
//                  (temp file + rename) after closes; writes are coalesced so a slow write never delays a close
//   history.jsonl  one line per closed ledger (close time, hash, close meta, applied transactions), appended
//                  synchronously at each close, compacted to the retention window from time to time
// History lines are written before the snapshot that includes their ledger, so after a crash the history may run
// ahead of the snapshot (those lines are dropped on load) but never behind it. A clean stop flushes both.
import { existsSync, mkdirSync, readFileSync, renameSync, appendFileSync, writeFileSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppliedTransaction, EngineSnapshot } from '../engine';
import type { LedgerRecord } from '../history/historyStore';

const ENGINE_FILE = 'engine.json';
const HISTORY_FILE = 'history.jsonl';
const ENGINE_FORMAT = 'onboard-localnet-engine/1';

interface EngineFile {
  format: typeof ENGINE_FORMAT;
  networkPassphrase: string;
  latestLedger: number;
  savedAt: string;
  snapshot: EngineSnapshot;
}

/** A history line: short keys, because an idle localnet writes one every 5 s for days. */
interface LedgerLine {
  s: number;
  t: number;
  h: string;
  /** LedgerCloseMeta (lines written before getLedgers existed have none). */
  m?: string;
  x?: (Omit<AppliedTransaction, 'feeCharged'> & { feeCharged: string })[];
}

export interface LoadedState {
  snapshot?: EngineSnapshot;
  /** Retained ledgers up to the snapshot's latest ledger, oldest first. */
  ledgers: LedgerRecord[];
}

export interface EngineState {
  snapshot: EngineSnapshot;
  latestLedger: number;
}

function toLine(l: LedgerRecord): string {
  const line: LedgerLine = { s: l.sequence, t: l.closeTime, h: l.hash };
  if (l.metadataXdr !== undefined) line.m = l.metadataXdr;
  if (l.transactions.length) line.x = l.transactions.map((tx) => ({ ...tx, feeCharged: tx.feeCharged.toString() }));
  return `${JSON.stringify(line)}\n`;
}

function fromLine(line: LedgerLine): LedgerRecord {
  return {
    sequence: line.s,
    closeTime: line.t,
    hash: line.h,
    ...(line.m !== undefined ? { metadataXdr: line.m } : {}),
    transactions: (line.x ?? []).map((tx) => ({ ...tx, feeCharged: BigInt(tx.feeCharged) })),
  };
}

export class StateDir {
  private historyLines = 0;
  private pendingSave: (() => EngineState) | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly opts: { networkPassphrase: string; retentionLedgers: number; log: (msg: string) => void },
  ) {
    mkdirSync(dir, { recursive: true });
  }

  private get enginePath(): string {
    return join(this.dir, ENGINE_FILE);
  }

  private get historyPath(): string {
    return join(this.dir, HISTORY_FILE);
  }

  /** Reads what a previous run left; refuses a directory written for another network. */
  load(): LoadedState {
    if (!existsSync(this.enginePath)) {
      // A history without a snapshot cannot be trusted to match a fresh genesis.
      if (existsSync(this.historyPath)) writeFileSync(this.historyPath, '');
      return { ledgers: [] };
    }
    const file = JSON.parse(readFileSync(this.enginePath, 'utf8')) as EngineFile;
    if (file.format !== ENGINE_FORMAT) throw new Error(`${this.enginePath}: unknown format ${String(file.format)}`);
    if (file.networkPassphrase !== this.opts.networkPassphrase) {
      throw new Error(
        `${this.dir} holds a localnet for "${file.networkPassphrase}", not "${this.opts.networkPassphrase}": use another data directory or the same passphrase`,
      );
    }
    const ledgers: LedgerRecord[] = [];
    let lines = 0;
    if (existsSync(this.historyPath)) {
      for (const text of readFileSync(this.historyPath, 'utf8').split('\n')) {
        if (!text.trim()) continue;
        lines++;
        let line: LedgerLine;
        try {
          line = JSON.parse(text) as LedgerLine;
        } catch {
          continue; // a line cut short by a crash
        }
        if (line.s > file.latestLedger) continue; // ahead of the snapshot: that close was lost
        ledgers.push(fromLine(line));
      }
    }
    const kept = ledgers.slice(-this.opts.retentionLedgers);
    this.historyLines = lines;
    if (lines !== kept.length) this.rewriteHistory(kept);
    return { snapshot: file.snapshot, ledgers: kept };
  }

  /** Appends a closed ledger to history.jsonl, compacting the file when it holds far more than the window. */
  appendLedger(ledger: LedgerRecord, retained: () => Iterable<LedgerRecord>): void {
    appendFileSync(this.historyPath, toLine(ledger));
    this.historyLines++;
    if (this.historyLines > this.opts.retentionLedgers + Math.max(1000, Math.floor(this.opts.retentionLedgers / 10))) {
      this.rewriteHistory(retained());
    }
  }

  /** Writes the whole history afresh (atomically), e.g. the ledgers of a brand-new genesis. */
  rewriteHistory(ledgers: Iterable<LedgerRecord>): void {
    const tmp = `${this.historyPath}.tmp`;
    let text = '';
    let n = 0;
    for (const l of ledgers) {
      text += toLine(l);
      n++;
    }
    writeFileSync(tmp, text);
    renameSync(tmp, this.historyPath);
    this.historyLines = n;
  }

  /**
   * Asks for the engine snapshot to be written. `take` runs when the write starts, so a burst of closes costs one
   * write of the newest state.
   */
  requestSave(take: () => EngineState): void {
    this.pendingSave = take;
    this.writing ??= this.drain();
  }

  /** Resolves once every requested save is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes the snapshot synchronously (start-up of a fresh directory, and stop). */
  saveNow(state: EngineState): void {
    const tmp = `${this.enginePath}.tmp`;
    writeFileSync(tmp, this.engineFileText(state));
    renameSync(tmp, this.enginePath);
  }

  private engineFileText(state: EngineState): string {
    const file: EngineFile = {
      format: ENGINE_FORMAT,
      networkPassphrase: this.opts.networkPassphrase,
      latestLedger: state.latestLedger,
      savedAt: new Date().toISOString(),
      snapshot: state.snapshot,
    };
    return JSON.stringify(file);
  }

  private async drain(): Promise<void> {
    try {
      while (this.pendingSave) {
        const take = this.pendingSave;
        this.pendingSave = undefined;
        try {
          const tmp = `${this.enginePath}.tmp`;
          await writeFile(tmp, this.engineFileText(take()));
          await rename(tmp, this.enginePath);
        } catch (err) {
          this.opts.log(
            `could not save the localnet state in ${this.dir}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}
