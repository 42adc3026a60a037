import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domainsFieldErrors, MAX_DOMAIN_ENTRIES } from './domains';

const valid = {
  origins: ['https://app.example.com', 'http://localhost:3000', 'http://127.0.0.1', 'https://shop.example.com:8443'],
  redirectUris: [
    'https://app.example.com/auth/callback',
    'com.example.app://auth/callback',
    'http://localhost:3000/cb?x=1',
  ],
};

test('exact origins and redirect URIs are accepted', () => {
  assert.deepEqual(domainsFieldErrors(valid), {});
  assert.deepEqual(domainsFieldErrors({ origins: [], redirectUris: [] }), {});
});

test('an origin with a path, wildcard, upper case, query or trailing slash is refused, keyed by its index', () => {
  for (const bad of [
    'https://app.example.com/',
    'https://app.example.com/x',
    'https://*.example.com',
    'https://App.example.com',
    'https://app.example.com?x',
    'app.example.com',
    'ftp://app.example.com',
  ]) {
    const errors = domainsFieldErrors({ origins: ['https://ok.example.com', bad], redirectUris: [] });
    assert.deepEqual(Object.keys(errors), ['origins.1'], bad);
  }
});

test('http is allowed only for localhost and 127.0.0.1', () => {
  assert.deepEqual(Object.keys(domainsFieldErrors({ origins: ['http://app.example.com'], redirectUris: [] })), [
    'origins.0',
  ]);
  assert.deepEqual(
    Object.keys(domainsFieldErrors({ origins: ['http://localhost', 'http://127.0.0.1:8080'], redirectUris: [] })),
    [],
  );
});

test('an origin a browser would spell differently never matches, so it is refused with the form to use', () => {
  assert.deepEqual(domainsFieldErrors({ origins: ['https://app.example.com:443'], redirectUris: [] }), {
    'origins.0': ['must be written as https://app.example.com'],
  });
  assert.deepEqual(domainsFieldErrors({ origins: ['https://0x7f.1'], redirectUris: [] }), {
    'origins.0': ['must be written as https://127.0.0.1'],
  });
  assert.match(
    domainsFieldErrors({ origins: ['https://app.example.com:99999'], redirectUris: [] })['origins.0']![0]!,
    /port/,
  );
});

test('duplicates name the first occurrence', () => {
  assert.deepEqual(
    domainsFieldErrors({
      origins: ['https://a.example.com', 'https://b.example.com', 'https://a.example.com'],
      redirectUris: [],
    }),
    {
      'origins.2': ['is a duplicate of origins.0'],
    },
  );
  assert.deepEqual(domainsFieldErrors({ origins: [], redirectUris: ['myapp://cb', 'myapp://cb'] }), {
    'redirectUris.1': ['is a duplicate of redirectUris.0'],
  });
});

test('at most 50 entries per list', () => {
  const origins = Array.from({ length: MAX_DOMAIN_ENTRIES + 1 }, (_, i) => `https://a${i}.example.com`);
  assert.deepEqual(domainsFieldErrors({ origins, redirectUris: [] }), { origins: ['must have at most 50 entries'] });
  assert.deepEqual(domainsFieldErrors({ origins: origins.slice(0, MAX_DOMAIN_ENTRIES), redirectUris: [] }), {});
});

test('a redirect URI with a wildcard, fragment, whitespace or no scheme is refused', () => {
  for (const bad of [
    'https://*.example.com/cb',
    'https://app.example.com/cb#x',
    'https://app.example.com/c b',
    '/auth/callback',
    'app.example.com/cb',
  ]) {
    assert.deepEqual(Object.keys(domainsFieldErrors({ origins: [], redirectUris: [bad] })), ['redirectUris.0'], bad);
  }
});

test('a redirect URI with a script or local scheme is refused', () => {
  for (const bad of ['javascript://x/%0aalert(1)', 'data://text/html,x', 'file://host/etc/passwd']) {
    assert.match(
      domainsFieldErrors({ origins: [], redirectUris: [bad] })['redirectUris.0']![0]!,
      /must not use the/,
      bad,
    );
  }
});
