// Both mail transports for real: SMTP through nodemailer to an in-process SMTP server (smtp-server, via
// tests/support/mail.ts), and the dev outbox's files.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { pino, type Logger } from 'pino';
import { freePort } from '../freePort';
import { startSmtpCapture, type SmtpCapture } from '../../../tests/support/mail';
import { createMailer } from './index';
import type { MailMessage } from './mailer';
import { MailUnavailableError } from '../errors';

const FROM = 'Onboard <no-reply@onboard.test>';

/** A logger whose lines the test can read. */
function capturingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }), lines };
}

// Non-ASCII, `=` and a line longer than 76 characters: the body goes out quoted-printable with soft line breaks.
const signInMessage: MailMessage = {
  to: 'ada@example.com',
  subject: 'Votre code de connexion Onboard : 012345 — expire bientôt',
  text: [
    'Your Onboard sign-in code is 012345.',
    '',
    'It expires in 10 minutes and works once. If you did not ask for it, ignore this email: nobody can sign in without the code (a=b, 100% sure).',
    'Café, naïve, 東京.',
  ].join('\n'),
  kind: 'operator-sign-in-code',
};

describe('SMTP transport (SMTP_URL)', () => {
  let smtp: SmtpCapture;
  before(async () => {
    smtp = await startSmtpCapture();
  });
  after(async () => {
    await smtp?.stop();
  });

  test('delivers recipient, sender, subject and text intact to a real SMTP server, and logs no part of the body', async () => {
    const { log, lines } = capturingLog();
    const mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' }, log);
    try {
      assert.equal(mailer.description, `SMTP ${new URL(smtp.url).host}`);
      await mailer.send(signInMessage);
      const received = await smtp.waitFor((m) => m.to.includes('ada@example.com'));
      assert.deepEqual(received.to, ['ada@example.com']);
      assert.equal(received.subject, signInMessage.subject);
      assert.equal(received.text, signInMessage.text);
      assert.match(received.raw, /^From: Onboard <no-reply@onboard\.test>$/m);
      assert.match(received.raw, /^To: ada@example\.com$/m);
      const log = lines.join('');
      assert.match(log, /mail sent/);
      assert.ok(!log.includes('012345'), 'the code is not logged');
      assert.ok(!log.includes('expires in 10 minutes'), 'the text is not logged');
    } finally {
      await mailer.close();
    }
  });

  test('with an HTML alternative, the plain-text part still arrives intact', async () => {
    const mailer = createMailer(
      { smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent' },
      pino({ level: 'silent' }),
    );
    try {
      await mailer.send({
        to: 'grace@example.com',
        subject: 'Invitation',
        text: 'Join the app "Shop".\nCode: 987654',
        html: '<p>Join the app <b>Shop</b>.</p>',
        kind: 'member-invitation',
      });
      const received = await smtp.waitFor((m) => m.to.includes('grace@example.com'));
      assert.equal(received.subject, 'Invitation');
      assert.equal(received.text, 'Join the app "Shop".\nCode: 987654');
      assert.match(received.raw, /multipart\/alternative/);
    } finally {
      await mailer.close();
    }
  });

  test('the capture decodes a subject split mid-character across B-encoded words and a base64 body', async () => {
    const tokyo = Buffer.from('東京');
    const raw = [
      'From: x@onboard.test',
      'To: raw@example.com',
      `Subject: =?UTF-8?B?${tokyo.subarray(0, 4).toString('base64')}?=\r\n =?UTF-8?B?${tokyo.subarray(4).toString('base64')}?= ok`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('Code 123456\nCafé').toString('base64'),
      '',
    ].join('\r\n');
    const transport = nodemailer.createTransport(smtp.url);
    try {
      await transport.sendMail({ envelope: { from: 'x@onboard.test', to: ['raw@example.com'] }, raw });
    } finally {
      transport.close();
    }
    const received = await smtp.waitFor((m) => m.to.includes('raw@example.com'));
    assert.equal(received.subject, '東京 ok');
    assert.equal(received.text, 'Code 123456\nCafé');
  });

  test('send gives up within seconds on a server that accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket)); // accepts, never greets
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const mailer = createMailer(
      { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, outboxDir: '/nonexistent' },
      pino({ level: 'silent' }),
    );
    const started = Date.now();
    try {
      await assert.rejects(
        mailer.send(signInMessage),
        (err) => err instanceof MailUnavailableError && /Greeting never received/.test(String(err.cause)),
      );
      assert.ok(Date.now() - started < 10_000, `gave up after ${Date.now() - started} ms`);
    } finally {
      await mailer.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('send rejects when the server cannot be reached', async () => {
    const port = await freePort(); // nothing listens there
    const mailer = createMailer(
      { smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, outboxDir: '/nonexistent' },
      pino({ level: 'silent' }),
    );
    try {
      await assert.rejects(
        mailer.send(signInMessage),
        (err) => err instanceof MailUnavailableError && /ECONNREFUSED/.test(String(err.cause)),
      );
    } finally {
      await mailer.close();
    }
  });
});

describe('dev outbox (no SMTP_URL)', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'onboard-outbox-'));
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('writes one 0600 JSON file per message in the outbox directory (created 0700), and logs where', async () => {
    const outboxDir = join(dataDir, 'outbox');
    const { log, lines } = capturingLog();
    const mailer = createMailer({ smtpUrl: undefined, from: FROM, outboxDir }, log);
    assert.equal(mailer.description, `dev outbox ${outboxDir}`);
    await mailer.send(signInMessage);
    await mailer.send({ to: 'bob@example.com', subject: 'Second', text: 'Code 000042', kind: 'sdk-sign-in-code' });

    assert.equal(statSync(outboxDir).mode & 0o777, 0o700);
    const files = readdirSync(outboxDir).sort();
    assert.equal(files.length, 2);
    const stored = files.map((name) => {
      assert.match(name, /^\d+-(operator-sign-in-code|sdk-sign-in-code)-[0-9a-f]{8}\.json$/);
      const path = join(outboxDir, name);
      assert.equal(statSync(path).mode & 0o777, 0o600, `${name} is readable by its owner only`);
      return JSON.parse(readFileSync(path, 'utf8')) as {
        from: { address: string };
        to: { address: string }[];
        subject: string;
        text: string;
      };
    });
    const first = stored.find((m) => m.subject === signInMessage.subject);
    const second = stored.find((m) => m.subject === 'Second');
    assert.ok(first && second);
    assert.deepEqual(
      first.to.map((t) => t.address),
      ['ada@example.com'],
    );
    assert.equal(first.from.address, 'no-reply@onboard.test');
    assert.equal(first.text, signInMessage.text);
    assert.deepEqual(
      second.to.map((t) => t.address),
      ['bob@example.com'],
    );
    assert.equal(second.text, 'Code 000042');

    const logged = lines
      .map((l) => JSON.parse(l) as { msg: string; file?: string; text?: string })
      .filter((l) => l.msg === 'mail kept in the dev outbox');
    assert.equal(logged.length, 2);
    assert.ok(logged.every((l) => l.file?.startsWith(outboxDir)));
    assert.ok(
      logged.some((l) => l.text === 'Code 000042'),
      'the dev outbox shows the text in the log',
    );
  });

  test('a kind with path characters cannot place the file outside the outbox', async () => {
    const outboxDir = join(dataDir, 'outbox-kinds');
    const mailer = createMailer({ smtpUrl: undefined, from: FROM, outboxDir }, pino({ level: 'silent' }));
    await mailer.send({ to: 'eve@example.com', subject: 'x', text: 'x', kind: '/../../escaped' });
    assert.equal(readdirSync(outboxDir).length, 1);
    assert.deepEqual(readdirSync(dataDir).sort(), ['outbox', 'outbox-kinds']);
  });
});
