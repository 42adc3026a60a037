// `make cluster` (scripts/cluster.ts) as a child of a bench: three API processes and two workers on one embedded
// PostgreSQL and one localnet, behind the cluster's readiness-aware round-robin proxy, on free ports and a throwaway
// data directory, started and stopped as tests/faults/cluster.test.ts does. What the cluster's processes log (at
// LOG_LEVEL=warn: warnings and errors only) is tallied by process, level and message, so a load test can report what
// the service complained about; the CPU time of each process (with what it started, such as the embedded PostgreSQL
// under api-1) is read from /proc, so it can say where the machine's time went.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedDatabaseUrl, reachableDataDir } from '../src/infra/db/embeddedPostgres';
import { CLUSTER_API_PROCESSES, spawnCluster } from '../scripts/clusterProcess';

/** A first start creates the database cluster; on a busy 2-core machine the three API processes take a while more. */
const READY_TIMEOUT_MS = 240_000;
/** How long stop() waits for the cluster's own orderly stop before it kills what is left. */
const STOP_TIMEOUT_MS = 60_000;

export interface ClusterChild {
  /** The proxy: what clients of the cluster call. */
  proxyUrl: string;
  /** Each API process's own address, in the order api-1, api-2, api-3. */
  apiUrls: string[];
  /** The cluster's database and chain, for the bench's own reads and set-up. */
  databaseUrl: string;
  rpcUrl: string;
  /** The cluster's ONBOARD_DATA_DIR: service secret, local master key, dev mail outbox (`outbox/`). */
  dataDir: string;
  /** The cluster's processes by name (api-1.., worker-1..), from the cluster's pids file. */
  pids: Record<string, number>;
  /** The warnings and errors the cluster's processes logged since start (or since the last reset). */
  logs: LogTally;
  /** CPU seconds (user + system) of the proxy and of each process with its descendants, now. */
  cpuSeconds(): Record<string, number>;
  stop(): Promise<void>;
}

/** Log lines of the cluster's processes, counted by process, level and message. */
export class LogTally {
  private counts = new Map<string, number>();
  /** The last lines that were not pino JSON (a stack trace, a crash), for a post-mortem. */
  private other: string[] = [];
  private lineCount = 0;

  add(member: string, text: string): void {
    this.lineCount++;
    let level = 'text';
    let msg = text.trim();
    try {
      const parsed = JSON.parse(text) as { level?: number; msg?: string; err?: { message?: string } };
      level = parsed.level === undefined ? 'text' : (PINO_LEVELS[parsed.level] ?? String(parsed.level));
      msg = `${parsed.msg ?? ''}${parsed.err?.message ? ` (${parsed.err.message})` : ''}`;
    } catch {
      this.other = [...this.other.slice(-49), `[${member}] ${text}`];
    }
    // Ids, hashes and numbers vary from line to line; the tally groups lines by what they say. An id is a prefix and
    // a long base62 run (tx_01JD3X5K7Q9T2M4N6P8R0S1V3W); a result code (tx_insufficient_fee) is kept as it is.
    const shape = msg
      .replace(/\b[A-Z0-9]{56}\b/g, '<address>')
      .replace(/\b[0-9a-f]{64}\b/g, '<hash>')
      .replace(/\b(tx|usr|wal|ses|app|key)_[0-9A-Za-z]{16,}/g, '$1_<id>')
      .replace(/\d+/g, '<n>')
      .slice(0, 200);
    const key = `${member.replace(/-\d+$/, '')}\t${level}\t${shape}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  reset(): void {
    this.counts.clear();
    this.other = [];
    this.lineCount = 0;
  }

  get lines(): number {
    return this.lineCount;
  }

  /** The tally, most frequent first: process kind (api, worker), level, message shape, count. */
  entries(): { kind: string; level: string; message: string; count: number }[] {
    return [...this.counts.entries()]
      .map(([key, count]) => {
        const [kind, level, message] = key.split('\t') as [string, string, string];
        return { kind, level, message, count };
      })
      .sort((a, b) => b.count - a.count);
  }

  /** The last lines that were not pino JSON. */
  tail(): string[] {
    return this.other;
  }
}

const PINO_LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** utime + stime + cutime + cstime of a process, in seconds (clock ticks of 1/100 s on Linux). */
function cpuOfPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0; // gone
  }
}

/** Each live process's parent, read from /proc. */
function parents(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone since the listing
    }
  }
  return children;
}

/** CPU seconds of `pid` and every live descendant (a reaped child's time is in its parent's cutime). */
function cpuOfTree(pid: number, children: Map<number, number[]>): number {
  let total = cpuOfPid(pid);
  for (const child of children.get(pid) ?? []) total += cpuOfTree(child, children);
  return total;
}

/**
 * Starts the cluster with `env` over the bench defaults (silent but for warnings, no demo seed, limits shared through
 * PostgreSQL) and waits until its proxy is ready. stop() stops it in order (SIGTERM: the proxy, then the workers and
 * api-2/3, then api-1 with the database and chain), kills whatever is left after a minute, and removes its data.
 */
export async function startCluster(env: Record<string, string>): Promise<ClusterChild> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onboard-bench-load-'));
  const logs = new LogTally();
  let output = '';
  const { child, proxyPort, apiBasePort: apiBase, pgPort, localnetPort } = await spawnCluster(dataDir, env);
  const take = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-20_000);
    for (const line of text.split('\n')) {
      const m = /^\[([a-z]+-\d+)\] (.*)$/.exec(line);
      if (m) logs.add(m[1]!, m[2]!);
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  /** Only when the cluster did not stop by itself: each of its processes leads a process group of its own. */
  const killAll = () => {
    for (const pid of Object.values(readPids())) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    child.kill('SIGKILL');
  };
  const readPids = (): Record<string, number> => {
    try {
      return JSON.parse(readFileSync(join(dataDir, 'cluster-pids.json'), 'utf8')) as Record<string, number>;
    } catch {
      return {};
    }
  };
  const removeData = () => {
    rmSync(dataDir, { recursive: true, force: true });
    // As root the embedded PostgreSQL keeps its data in a stand-in under /var/tmp (src/infra/db/embeddedPostgres.ts).
    rmSync(reachableDataDir(join(dataDir, 'postgres')), { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!output.includes('[cluster] ready:')) {
    if (child.exitCode !== null || child.signalCode !== null) {
      removeData();
      throw new Error(`the cluster exited during start-up:\n${output.slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      killAll();
      await exited;
      removeData();
      throw new Error(`the cluster was not ready in ${READY_TIMEOUT_MS / 1000} s:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const pids = readPids();
  return {
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    apiUrls: Array.from({ length: CLUSTER_API_PROCESSES }, (_, i) => `http://127.0.0.1:${apiBase + i}`),
    databaseUrl: embeddedDatabaseUrl(pgPort, 'onboard'),
    rpcUrl: `http://127.0.0.1:${localnetPort}/rpc`,
    dataDir,
    pids,
    logs,
    cpuSeconds() {
      const children = parents();
      return {
        // The cluster script itself is the proxy; its tree would be the whole cluster, so only its own time counts.
        proxy: cpuOfPid(child.pid!),
        ...Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuOfTree(pid, children)])),
      };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(killAll, STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      removeData();
    },
  };
}
