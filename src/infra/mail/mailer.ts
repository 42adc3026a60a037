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

export interface Mailer {
  /** Sends (or, for the dev outbox, stores) one message; rejects when the transport fails. */
  send(message: MailMessage): Promise<void>;
  /** For the banner: `dev outbox <dir>` or `SMTP <host>`. */
  description: string;
  close(): Promise<void>;
}
