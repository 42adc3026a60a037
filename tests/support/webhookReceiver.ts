// A real HTTP receiver for webhook deliveries, on 127.0.0.1 (the service under test runs with
// WEBHOOK_ALLOW_INSECURE=on, the development setting that accepts such a URL). It keeps every request (headers and the
// raw body) and answers what the test asks: a status per request, in order (the last one repeats), with optional
// headers and a delay.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Keypair } from '@stellar/stellar-sdk';
import { reportLowBalance } from '../../src/domain/funding/lowBalance';
import type { TestService } from './service';
import { validatorAt } from './spec';

export interface ReceivedDelivery {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  body?: string | Buffer;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** What the next requests are answered, in order; the last one repeats. Default 200. */
  answer(...answers: Answer[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let answers: Answer[] = [{ status: 200, body: 'ok' }];
  let served = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        at: Date.now(),
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers[Math.min(served, answers.length - 1)]!;
      served += 1;
      setTimeout(() => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer: (...next) => {
      answers = next;
      served = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The contract's payload schema of an event type: `wallet.created` -> WebhookWalletCreated. */
export function payloadSchemaOf(event: string): string {
  const name = event
    .split('.')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return `#/components/schemas/Webhook${name}`;
}

/**
 * What is wrong with a delivery (empty: nothing): its body against the contract's payload schema, `webhook-id`
 * against the body's id, and both signatures against `secrets` (any may match, as during a rotation), checked with
 * the standardwebhooks package, as a receiver would.
 */
export function deliveryProblems(delivery: ReceivedDelivery, secrets: string[]): string[] {
  const problems: string[] = [];
  let body: { id?: string; event?: string };
  try {
    body = JSON.parse(delivery.body) as { id?: string; event?: string };
  } catch {
    return ['the body is not JSON'];
  }
  const validate = validatorAt(payloadSchemaOf(body.event ?? ''));
  if (!validate(body)) problems.push(`body: ${JSON.stringify(validate.errors)}`);
  if (delivery.headers['webhook-id'] !== body.id) problems.push('webhook-id is not the body id');
  if (!secrets.some((s) => verifiesV1(delivery, s))) problems.push('no webhook-signature verifies');
  const legacy = delivery.headers['x-service-signature'];
  if (!secrets.some((s) => legacy === `sha256=${createHmac('sha256', s).update(delivery.body).digest('hex')}`))
    problems.push('X-Service-Signature does not verify');
  return problems;
}

function verifiesV1(delivery: ReceivedDelivery, secret: string): boolean {
  try {
    new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Records a `sponsor.balance.low` event of the app, as the activation and the balance scan do (a new address each
 * time, so the 24 h repeat rule never holds it back); answers the event's id.
 */
export async function recordLowBalanceEvent(svc: Pick<TestService, 'deps'>, appId: string): Promise<string> {
  const address = Keypair.random().publicKey();
  await svc.deps.db.transaction((trx) =>
    reportLowBalance(svc.deps, trx, {
      appId,
      walletType: 'funding',
      address,
      balanceStroops: BigInt(Math.floor(Math.random() * 1000)),
      thresholdXlm: '50',
      at: new Date(),
    }),
  );
  const row = await svc.deps.db('outbox_events').whereRaw(`data->>'address' = ?`, [address]).first('id');
  return (row as { id: string }).id;
}
