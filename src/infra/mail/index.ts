// createMailer: nodemailer in both modes, so messages are built the same way whether they are sent or kept.
//   - SMTP (SMTP_URL set, e.g. smtps://user:pass@mail.example.com:465): sent through nodemailer's SMTP transport.
//     Nothing of the message body is logged (it may hold a sign-in code).
//   - dev outbox (default): nodemailer's JSON transport renders the message, which is written to
//     `<dataDir>/outbox/<time>-<kind>-<id>.json` (mode 0600) and logged at info with its text, so a developer running
//     `make run` can read a sign-in code from the terminal. Never use it in production: it writes codes to the log.
//     readOutbox reads those files back (the dashboard's dev outbox view, the end-user CLI).
import { mkdirSync, writeFileSync } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { Logger } from 'pino';
import type { Mailer, MailMessage, OutboxMessage, OutboxQuery } from './mailer';
import { MailUnavailableError } from '../errors';

export interface MailSettings {
  /** SMTP URL (nodemailer connection URL); undefined = dev outbox. */
  smtpUrl: string | undefined;
  /** The From address of every message. */
  from: string;
  /** Directory of the dev outbox. */
  outboxDir: string;
}

/**
 * A sign-in request waits for its email, so a silent server must fail the send in seconds (nodemailer's defaults wait
 * up to 2 min to connect and 10 min on an idle socket). SMTP_URL query parameters (`?socketTimeout=60000`) override.
 */
const SMTP_TIMEOUTS_MS = { connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 15_000 };

export function createMailer(settings: MailSettings, log: Logger): Mailer {
  if (settings.smtpUrl) {
    const transport = nodemailer.createTransport({ ...SMTP_TIMEOUTS_MS, url: settings.smtpUrl });
    const host = new URL(settings.smtpUrl).host;
    return {
      description: `SMTP ${host}`,
      async send(message) {
        try {
          await transport.sendMail(toNodemailer(settings.from, message));
        } catch (err) {
          throw new MailUnavailableError(`SMTP ${host} did not take the message`, { cause: err });
        }
        log.info({ kind: message.kind, to: message.to }, 'mail sent');
      },
      async close() {
        transport.close();
      },
    };
  }
  const transport = nodemailer.createTransport({ jsonTransport: true });
  return {
    description: `dev outbox ${settings.outboxDir}`,
    outbox: { read: (query) => readOutbox(settings.outboxDir, query) },
    async send(message) {
      const info = await transport.sendMail(toNodemailer(settings.from, message));
      // The kind becomes part of a file name: only safe characters, so no kind can point outside the outbox.
      const kind = message.kind.replace(/[^A-Za-z0-9_-]/g, '_');
      const file = join(settings.outboxDir, `${Date.now()}-${kind}-${randomBytes(4).toString('hex')}.json`);
      try {
        mkdirSync(settings.outboxDir, { recursive: true, mode: 0o700 });
        writeFileSync(file, `${info.message}\n`, { mode: 0o600 });
      } catch (err) {
        throw new MailUnavailableError(`the dev outbox ${settings.outboxDir} cannot be written`, { cause: err });
      }
      // The dev outbox's purpose is to show the message: the text goes to the log (dev only; SMTP never logs it).
      log.info({ kind: message.kind, to: message.to, file, text: message.text }, 'mail kept in the dev outbox');
    },
    async close() {},
  };
}

function toNodemailer(from: string, m: MailMessage): SendMailOptions {
  return { from, to: m.to, subject: m.subject, text: m.text, ...(m.html ? { html: m.html } : {}) };
}

/** `<time>-<kind>-<id>.json` as send() names the files; nothing else in the directory is read. */
const OUTBOX_FILE = /^(\d{1,15})-([A-Za-z0-9_-]+)-([0-9a-f]{8})\.json$/;

/** How many of the newest files one read looks at, so a long-lived outbox costs a bounded amount per request. */
const OUTBOX_SCAN_LIMIT = 1000;

/**
 * The dev outbox's messages matching `query`, newest first. Only regular files named as send() names them are read
 * (no symbolic link, so nothing outside the directory); a file that is not such a message is skipped; a missing
 * directory holds no messages.
 */
export async function readOutbox(dir: string, query: OutboxQuery): Promise<OutboxMessage[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const to = query.to?.toLowerCase();
  const since = query.since?.getTime();
  const files = names
    .map((name) => ({ name, match: OUTBOX_FILE.exec(name) }))
    .filter((f): f is { name: string; match: RegExpExecArray } => f.match !== null)
    .map(({ name, match }) => ({ name, time: Number(match[1]), kind: match[2]! }))
    .filter((f) => (since === undefined || f.time >= since) && (query.kind === undefined || f.kind === query.kind))
    .sort((a, b) => b.time - a.time || (a.name < b.name ? 1 : -1))
    .slice(0, OUTBOX_SCAN_LIMIT);
  const found: OutboxMessage[] = [];
  for (const file of files) {
    if (found.length >= query.limit) break;
    const message = await readOutboxFile(join(dir, file.name), file.kind, file.time);
    if (message && (to === undefined || message.to.some((address) => address.toLowerCase() === to)))
      found.push(message);
  }
  return found;
}

async function readOutboxFile(path: string, kind: string, time: number): Promise<OutboxMessage | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    const parsed = JSON.parse(await readFile(path, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { to, subject, text } = parsed as { to?: unknown; subject?: unknown; text?: unknown };
    if (!Array.isArray(to) || typeof subject !== 'string' || typeof text !== 'string') return undefined;
    const addresses = to
      .map((t) => (t as { address?: unknown } | null)?.address)
      .filter((a): a is string => typeof a === 'string');
    return { kind, to: addresses, subject, text, sentAt: new Date(time) };
  } catch {
    return undefined; // gone since the listing, unreadable, or not JSON: not a message
  }
}
