// `npm run webhooks -- listen`, the local receiver for an app's developers, against the real service's deliveries: it
// prints each one and says whether its signatures verify with the given secret (and refuses to vouch otherwise).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { listen } from '../../src/cli/webhooks';
import { projectRoot } from '../../src/paths';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { updateWebhookConfig } from '../../src/domain/webhooks/endpoints';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, eventually } from '../support/funding';
import { recordLowBalanceEvent } from '../support/webhookReceiver';

let svc: TestService;
before(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'on' });
});
after(async () => {
  await svc?.stop();
});

async function deliverTo(url: string): Promise<string> {
  const { app } = await appWithWallet(svc, { funded: false });
  const { secret } = await updateWebhookConfig(svc.deps, {
    appId: app.id,
    url,
    enabled: true,
    events: ['sponsor.balance.low'],
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
  await recordLowBalanceEvent(svc, app.id);
  return secret!;
}

test('prints each delivery and vouches for its signatures only with the right secret', async () => {
  const lines: string[] = [];
  const secrets: string[] = [];
  const listener = await listen({ port: 0, host: '127.0.0.1', secrets, status: 200, print: (l) => lines.push(l) });
  try {
    const secret = await deliverTo(listener.url);
    secrets.push(secret);
    await eventually('a delivery printed', async () => lines.length >= 1);
    assert.match(lines[0]!, /sponsor\.balance\.low evt_/);
    assert.match(lines[0]!, /webhook-signature ok, X-Service-Signature ok/);
  } finally {
    await listener.close();
  }
  const wrong: string[] = [];
  const strict = await listen({
    port: 0,
    host: '127.0.0.1',
    secrets: ['whsec_' + Buffer.alloc(32, 7).toString('base64')],
    status: 200,
    print: (l) => wrong.push(l),
  });
  try {
    await deliverTo(strict.url);
    await eventually('a delivery printed', async () => wrong.length >= 1);
    assert.match(wrong[0]!, /REFUSE: invalid_signature/);
  } finally {
    await strict.close();
  }
});

test('bad arguments: the usage and exit code 2', () => {
  const run = spawnSync(
    join(projectRoot, 'node_modules/.bin/tsx'),
    ['src/cli/webhooks.ts', 'listen', '--status', '99'],
    {
      cwd: projectRoot,
      encoding: 'utf8',
    },
  );
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--status 200-599/);
});
