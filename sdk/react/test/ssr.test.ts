// @onboard/react on a server: rendering the provider and the components touches no browser API and shows the
// `restoring` state (the client starts in an effect, which a server render never runs), so SSR frameworks can render
// pages that use it; useOnboard outside a provider says what is missing. useDistributionRules renders its idle state
// on the server and loads nothing there, even with a signed-in client; so do useKyc and KycStep (which render nothing
// signed out). KycStep in a browser, against the service: tests/browser/kycStep.test.ts. RampWidget too requests
// nothing on the server (tests/browser/rampWidget.test.ts drives it in a browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createOnboard } from '@onboard/core';
import {
  HistoryList,
  KycStep,
  RampWidget,
  OnboardProvider,
  SendForm,
  SignInForm,
  useAuth,
  useDistributionRules,
  useKyc,
  useOnboard,
  WalletCard,
} from '../src/index';
import { emailSignInService, ok, rulesListed, distributionRule, signedInClient } from '../../core/test/fakeService';

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
  const fake = emailSignInService().on('GET /v1/distribution/rules', () => rulesListed([distributionRule()]));
  const { client } = await signedInClient(fake);
  const before = fake.seen.length;
  const html = renderToString(createElement(OnboardProvider, { client }, createElement(Step), createElement(Rules)));
  assert.match(html, /<p id="step">authenticated<\/p>/);
  assert.match(html, /<p id="rules">idle 0 rules, 0 claims<\/p>/);
  assert.equal(fake.seen.length, before, 'the rules load in an effect, which a server render never runs');
  client.destroy();
});

function Kyc() {
  const { state, providers, status, flow } = useKyc();
  return createElement('p', { id: 'kyc' }, `${state.step} ${providers.length} providers, ${status}, ${flow.step}`);
}

test('useKyc and KycStep on the server: idle, no request when signed in; KycStep renders nothing signed out', async () => {
  const fake = emailSignInService().on('GET /v1/kyc/providers', () =>
    ok('SDK_KYC_PROVIDERS_LISTED', { providers: [], status: 'pending', verificationId: 'kyv_1' }),
  );
  const { client, requests } = await signedInClient(fake);
  const html = renderToString(
    createElement(OnboardProvider, { client }, createElement(Kyc), createElement(KycStep, { level: 'enhanced' })),
  );
  assert.match(html, /<p id="kyc">idle 0 providers, none, idle<\/p>/);
  assert.match(html, /aria-label="Identity verification"/);
  assert.match(html, /Loading…/);
  assert.deepEqual(requests(), [], 'the providers load (and a pending verification is followed) in effects only');
  client.destroy();

  const signedOut = createOnboard({ publishableKey: PUB, baseUrl: 'https://api.example.test' });
  const none = renderToString(createElement(OnboardProvider, { client: signedOut }, createElement(KycStep)));
  assert.equal(none, '');
});

test('RampWidget on the server: no request when signed in (the providers load in an effect)', async () => {
  const fake = emailSignInService().on('GET /v1/ramps/providers', () =>
    ok('SDK_RAMPS_PROVIDERS_LISTED', { providers: [] }),
  );
  const { client, requests } = await signedInClient(fake);
  const html = renderToString(createElement(OnboardProvider, { client }, createElement(RampWidget)));
  assert.ok(html.length > 0, 'the widget renders its frame');
  assert.deepEqual(requests(), [], 'nothing is requested during a server render');
  client.destroy();
});
