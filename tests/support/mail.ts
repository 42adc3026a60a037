// A real SMTP server in the test process (smtp-server) that keeps every message it receives, so a test can run the
// service with SMTP_URL=<url> and read what it sent (sign-in codes). It parses the RFC 5322 message just enough for
// that: the subject (with RFC 2047 encoded words) and the text/plain body (7bit, 8bit, quoted-printable or base64,
// also inside multipart/alternative), assuming UTF-8.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[];
  subject: string;
  /** The plain-text body, decoded, with LF line ends. */
  text: string;
  /** The message as received. */
  raw: string;
}

export interface SmtpCapture {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message received so far, in order. */
  messages: CapturedMail[];
  /** The first message (received or still to come) matching `predicate`; rejects after timeoutMs (default 5000). */
  waitFor(predicate: (m: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  stop(): Promise<void>;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  const listeners = new Set<(m: CapturedMail) => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = { to: session.envelope.rcptTo.map((a) => a.address), ...parseMessage(raw), raw };
        messages.push(mail);
        for (const listener of listeners) listener(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(predicate, timeoutMs = 5000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const listener = (m: CapturedMail) => {
          if (!predicate(m)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(m);
        };
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(
              `no matching message within ${timeoutMs} ms; received: ${JSON.stringify(messages.map((m) => ({ to: m.to, subject: m.subject })))}`,
            ),
          );
        }, timeoutMs);
        listeners.add(listener);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Splits headers (unfolded, names in lower case) from the body. */
function splitPart(raw: string): Part {
  const normalized = raw.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function parseMessage(raw: string): { subject: string; text: string } {
  const message = splitPart(raw);
  const textPart = findTextPart(message);
  return {
    subject: decodeEncodedWords(message.headers.get('subject') ?? ''),
    text: textPart ? decodeBody(textPart) : '',
  };
}

function findTextPart(part: Part): Part | undefined {
  const type = part.headers.get('content-type') ?? 'text/plain';
  if (/^text\/plain/i.test(type)) return part;
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) return undefined;
  const sections = part.body.split(`--${boundary}`).slice(1); // the preamble goes; the last section is the epilogue
  for (const section of sections) {
    if (section.startsWith('--')) break;
    const found = findTextPart(splitPart(section.replace(/^\n/, '')));
    if (found) return found;
  }
  return undefined;
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  // The line break before a boundary (or the DATA terminator) belongs to the delimiter, not to the text.
  const body = part.body.replace(/\n$/, '');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

function decodeQuotedPrintable(text: string): string {
  return quotedPrintableBytes(text.replace(/=\n/g, '')).toString('utf8'); // `=` at a line end is a soft break
}

function quotedPrintableBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

const ENCODED_WORD = /=\?[^?]+\?([BbQq])\?([^?]*)\?=/g;
const ENCODED_WORD_RUN = /=\?[^?]+\?[BbQq]\?[^?]*\?=(?:\s+=\?[^?]+\?[BbQq]\?[^?]*\?=)*/g;

/**
 * RFC 2047 `=?UTF-8?Q?...?=` and `=?UTF-8?B?...?=`. Adjacent encoded words are one byte run (a character may be split
 * between two) and the white space between them is not part of the text.
 */
function decodeEncodedWords(value: string): string {
  return value.replace(ENCODED_WORD_RUN, (run) =>
    Buffer.concat(
      [...run.matchAll(ENCODED_WORD)].map(([, encoding, data]) =>
        encoding!.toUpperCase() === 'B' ? Buffer.from(data!, 'base64') : quotedPrintableBytes(data!.replace(/_/g, ' ')),
      ),
    ).toString('utf8'),
  );
}
