// How the service sends email (sign-in codes, member invitations). One interface, two transports: the dev outbox
// (embedded default: each message is kept as a file under `<dataDir>/outbox/` and logged, so `make run` works
// without a mail server) and SMTP through nodemailer when SMTP_URL is set. See createMailer in ./index.ts.

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body (always sent). */
  text: string;
  /** Optional HTML alternative. */
  html?: string;
  /**
   * What the message is for (`operator-sign-in-code`, `member-invitation`...): names the outbox file and the log
   * line; never sent.
   */
  kind: string;
}

/** A message the dev outbox kept, as read back. */
export interface OutboxMessage {
  /** MailMessage.kind, as the file name keeps it. */
  kind: string;
  /** The recipients' addresses. */
  to: string[];
  subject: string;
  text: string;
  sentAt: Date;
}

export interface OutboxQuery {
  /** Only messages to this address (compared case-insensitively). */
  to?: string;
  /** Only messages of this kind. */
  kind?: string;
  /** Only messages kept at or after this time. */
  since?: Date;
  /** At most this many, newest first. */
  limit: number;
}

export interface Mailer {
  /** Sends (or, for the dev outbox, stores) one message; rejects when the transport fails. */
  send(message: MailMessage): Promise<void>;
  /** For the banner: `dev outbox <dir>` or `SMTP <host>`. */
  description: string;
  /** Only when the transport is the dev outbox: reads back what it kept (development tools, never production). */
  outbox?: { read(query: OutboxQuery): Promise<OutboxMessage[]> };
  close(): Promise<void>;
}
