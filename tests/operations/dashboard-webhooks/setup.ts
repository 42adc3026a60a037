// What the dashboard-webhooks operations' tests in this folder share: a service whose deliveries may go to a receiver
// on this machine (WEBHOOK_ALLOW_INSECURE=on, the development setting; the refused addresses are tested with the
// setting off in tests/security/webhookSsrf.test.ts) with the retry schedule shortened to seconds, a real receiver,
// operators (an owner with a developer on the team, and an outsider), and helpers. Tests are in <operationId>.test.ts.
import { after, before } from 'node:test';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { recordLowBalanceEvent, startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let receiver: WebhookReceiver;
export let owner: OperatorClient;
export let developer: OperatorClient;
export let outsider: OperatorClient;

/** A new app of `owner`, with `developer` on its team. */
export const teamApp = (): Promise<string> => teamAppOf(owner, [[developer, 'developer']], 'Hooks app');

export const path = (appId: string) => `/api/v1/apps/${appId}/webhooks`;
export const getConfig = (client: OperatorClient, appId: string) => client.call('getWebhookConfig', 'GET', path(appId));
export const putConfig = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('updateWebhookConfig', 'PUT', path(appId), { body });
export const rotate = (client: OperatorClient, appId: string, body?: unknown) =>
  client.call('rotateWebhookSecret', 'POST', `${path(appId)}/secret/rotate`, body === undefined ? {} : { body });
export const listEvents = (client: OperatorClient, appId: string, query = '') =>
  client.call('listWebhookEvents', 'GET', `${path(appId)}/events${query}`);
export const redeliver = (client: OperatorClient, appId: string, eventId: string) =>
  client.call('redeliverWebhookEvent', 'POST', `${path(appId)}/events/${eventId}/redeliver`);

/** Records a sponsor.balance.low event of the app (as the activation and the balance scan do); answers its id. */
export const recordEvent = (appId: string): Promise<string> => recordLowBalanceEvent(svc, appId);

/** Waits until the event's delivery state is `status`. */
export async function eventStatus(eventId: string, status: string, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 100)))
    if ((await svc.deps.db('outbox_events').where({ id: eventId }).first('status'))?.status === status) return;
  throw new Error(`event ${eventId} is not ${status} after ${timeoutMs} ms`);
}

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
  before(async () => {
    svc = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1' });
    receiver = await startWebhookReceiver();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await receiver?.close();
    await svc?.stop();
  });
}
