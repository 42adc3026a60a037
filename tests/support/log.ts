// A pino logger whose lines a test can read (e.g. to search the log for secrets).
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export function capturingLogger(level = 'trace'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { log: pino({ level }, sink), lines };
}
