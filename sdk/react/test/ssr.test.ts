// @onboard/react on a server: rendering the provider and the components touches no browser API and shows the
// `restoring` state (the client starts in an effect, which a server render never runs), so SSR frameworks can render
// pages that use it; useOnboard outside a provider says what is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createOnboard } from '@onboard/core';
import { HistoryList, OnboardProvider, SendForm, SignInForm, useAuth, useOnboard, WalletCard } from '../src/index';

const PUB = `pub_testnet_${'TestOnlyNotARealKey0'.padEnd(32, '0')}`;

function Step() {
  return createElement('p', { id: 'step' }, useAuth().state.step);
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
      ),
    ),
  );
  assert.match(html, /<p id="step">restoring<\/p>/);
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
