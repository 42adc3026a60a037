// createMailer: nodemailer in both modes, so messages are built the same way whether they are sent or kept.
//   - SMTP (SMTP_URL set, e.g. smtps://user:pass@mail.example.com:465): sent through nodemailer's SMTP transport.
//     Nothing of the message body is logged (it may hold a sign-in code).
//   - dev outbox (default): nodemailer's JSON transport renders the message, which is written to
//     `<dataDir>/outbox/<time>-<kind>-<id>.json` (mode 0600) and logged at info with its text, so a developer running
//     `make run` can read a sign-in code from the terminal. Never use it in production: it writes codes to the log.
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { Logger } from 'pino';
import type { Mailer, MailMessage } from './mailer';
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
