// @onboard/react on a server: rendering the provider and the components touches no browser API and shows the
// `restoring` state (the client starts in an effect, which a server render never runs), so SSR frameworks can render
// pages that use it; useOnboard outside a provider says what is missing. useDistributionRules renders its idle state
// on the server and loads nothing there, even with a signed-in client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createOnboard, memoryStorage } from '@onboard/core';
import {
  HistoryList,
  OnboardProvider,
  SendForm,
  SignInForm,
  useAuth,
  useDistributionRules,
  useOnboard,
  WalletCard,
} from '../src/index';
import { FakeService, ok, rulesListed, distributionRule, signInResult } from '../../core/test/fakeService';

const PUB = `pub_testnet_${'TestOnlyNotARealKey0'.padEnd(32, '0')}`;

function Step() {
  return createElement('p', { id: 'step' }, useAuth().state.step);
}

function Rules() {
  const { state, rules, claims } = useDistributionRules();
  return createElement(
    'p',
    { id: 'rules' },
    `${state.step} ${rules.length} rules, ${Object.keys(claims).length} claims`,
  );
}

test('server rendering: the restoring state, no request made, no browser API touched', () => {
  let requests = 0;
  const html = renderToString(
    createElement(
      StrictMode,
      null,
      createElement(
        OnboardProvider,
        {
          options: {
            publishableKey: PUB,
            baseUrl: 'https://api.example.test',
            fetch: () => {
              requests += 1;
              return Promise.reject(new Error('no request during a server render'));
            },
          },
        },
        createElement(Step),
        createElement(SignInForm),
        createElement(WalletCard),
        createElement(SendForm),
        createElement(HistoryList),
        createElement(Rules),
      ),
    ),
  );
  assert.match(html, /<p id="step">restoring<\/p>/);
  assert.match(html, /<p id="rules">idle 0 rules, 0 claims<\/p>/);
  assert.equal(requests, 0);
  assert.equal(typeof (globalThis as { window?: unknown }).window, 'undefined');
});

test('a client made outside the tree is used as given', () => {
  const client = createOnboard({ publishableKey: PUB, baseUrl: 'https://api.example.test' });
  let seen: unknown;
  function Probe() {
    seen = useOnboard();
    return null;
  }
  renderToString(createElement(OnboardProvider, { client }, createElement(Probe)));
  assert.equal(seen, client);
});

test('useOnboard outside a provider throws a message naming the provider', () => {
  function Orphan() {
    useOnboard();
    return null;
  }
  assert.throws(() => renderToString(createElement(Orphan)), /OnboardProvider/);
});

test('useDistributionRules on the server: idle with no rules, and no request even when signed in', async () => {
  const fake = new FakeService()
    .on('POST /v1/auth/email/start', () =>
      ok('SDK_EMAIL_CODE_SENT', { sent: true, expiresInSeconds: 600, resendAfterSeconds: 30 }),
    )
    .on('POST /v1/auth/email/verify', () => ok('SDK_EMAIL_SIGN_IN_VERIFIED', signInResult()))
    .on('GET /v1/distribution/rules', () => rulesListed([distributionRule()]));
  const client = createOnboard({
    publishableKey: PUB,
    baseUrl: 'https://api.example.test',
    fetch: fake.fetch,
    storage: memoryStorage(),
  });
  await client.ready();
  client.beginEmailLogin();
  await client.sendEmailCode('ada@example.com');
  await client.verifyEmailCode('123456');
  assert.equal(client.auth.get().step, 'authenticated');
  const before = fake.seen.length;
  const html = renderToString(createElement(OnboardProvider, { client }, createElement(Step), createElement(Rules)));
  assert.match(html, /<p id="step">authenticated<\/p>/);
  assert.match(html, /<p id="rules">idle 0 rules, 0 claims<\/p>/);
  assert.equal(fake.seen.length, before, 'the rules load in an effect, which a server render never runs');
  client.destroy();
});
