// Operator sign-in: an email code (the dev outbox shows it in development), Google or GitHub, or a Stellar wallet
// (SEP-10: Freighter, or the development signer). Every method ends in operatorSession.establish; the session
// provider then shows the dashboard.
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useLocation } from 'react-router';
import { Alert, Anchor, Button, Center, Divider, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import {
  startOperatorEmailSignInMutation,
  verifyOperatorEmailSignInMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import { createSep10Challenge, verifySep10Challenge } from '../../../generated/dashboard/sdk.gen';
import { operatorSession, signInClient } from '../api/client';
import { fieldErrorOf, messageOf } from '../api/errors';
import { useRuntimeConfig, type RuntimeConfig } from '../api/runtimeConfig';
import { ErrorAlert } from '../components/ErrorAlert';
import { useDevOutboxCode } from './devOutbox';
import { startOAuthSignIn, type OperatorOAuthProvider } from './oauth';
import { devSignerAdapter, freighterAdapter } from './walletAdapters';
import type { WalletAdapter } from '@onboard/core';

function EmailSignIn({ devOutbox }: { devOutbox: boolean }) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sentAt, setSentAt] = useState<number | undefined>();
  const start = useMutation({ ...startOperatorEmailSignInMutation({ client: signInClient }) });
  const verify = useMutation({
    ...verifyOperatorEmailSignInMutation({ client: signInClient }),
    onSuccess: (data) => operatorSession.establish(data.content),
  });
  const outboxCode = useDevOutboxCode(email, sentAt ?? 0, devOutbox && sentAt !== undefined);

  const send = (event: FormEvent) => {
    event.preventDefault();
    verify.reset();
    start.mutate({ body: { email } }, { onSuccess: () => setSentAt(Date.now()) });
  };
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate({ body: { email, code } });
  };

  if (sentAt === undefined) {
    const fieldError = fieldErrorOf(start.error, 'email');
    return (
      <form onSubmit={send} noValidate>
        <Stack gap="sm">
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={fieldError}
          />
          {start.error && !fieldError ? <ErrorAlert error={start.error} /> : null}
          <Button type="submit" loading={start.isPending} disabled={!email}>
            Email me a sign-in code
          </Button>
        </Stack>
      </form>
    );
  }
  return (
    <form onSubmit={submitCode} noValidate>
      <Stack gap="sm">
        <Text size="sm">
          We sent a 6-digit code to <b>{email}</b>. It is valid for a few minutes.
        </Text>
        {devOutbox ? (
          <Alert variant="light" color="grape" title="Development outbox">
            {outboxCode.data ? (
              <Group justify="space-between">
                <Text size="sm">
                  The code is <b data-testid="dev-outbox-code">{outboxCode.data}</b>
                </Text>
                <Button size="xs" variant="light" onClick={() => setCode(outboxCode.data ?? '')}>
                  Use this code
                </Button>
              </Group>
            ) : (
              <Text size="sm">Waiting for the message in the service’s dev outbox…</Text>
            )}
          </Alert>
        ) : null}
        <TextInput
          label="Sign-in code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))}
          error={verify.error ? messageOf(verify.error) : undefined}
        />
        <Button type="submit" loading={verify.isPending} disabled={code.length !== 6}>
          Sign in
        </Button>
        <Group justify="space-between">
          <Anchor component="button" type="button" size="sm" onClick={() => setSentAt(undefined)}>
            Use another email
          </Anchor>
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={() => start.mutate({ body: { email } }, { onSuccess: () => setSentAt(Date.now()) })}
          >
            Send a new code
          </Anchor>
        </Group>
      </Stack>
    </form>
  );
}

function OAuthButtons({ config, returnTo }: { config: RuntimeConfig; returnTo: string }) {
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState<OperatorOAuthProvider | undefined>();
  const redirectUri = config.oauthRedirectUri;
  const providers = (['google', 'github'] as const).filter((p) => config.operatorSignIn[p]);
  if (!redirectUri || providers.length === 0) return null;
  const go = (provider: OperatorOAuthProvider) => {
    setPending(provider);
    setError(undefined);
    startOAuthSignIn(provider, redirectUri, returnTo).catch((err: unknown) => {
      setPending(undefined);
      setError(err);
    });
  };
  return (
    <Stack gap="xs">
      {providers.map((p) => (
        <Button key={p} variant="default" loading={pending === p} onClick={() => go(p)}>
          Continue with {p === 'google' ? 'Google' : 'GitHub'}
        </Button>
      ))}
      {error ? <ErrorAlert error={error} /> : null}
    </Stack>
  );
}

async function signInWithWallet(wallet: WalletAdapter): Promise<void> {
  const account = await wallet.getAddress();
  const { data: challenge } = await createSep10Challenge({
    client: signInClient,
    query: { account },
    throwOnError: true,
  });
  const { transaction, networkPassphrase } = challenge.content;
  const signed = await wallet.signTransaction(transaction, { networkPassphrase, address: account });
  const { data } = await verifySep10Challenge({
    client: signInClient,
    body: { transaction: signed },
    throwOnError: true,
  });
  await operatorSession.establish(data.content);
}

function WalletSignIn({ config }: { config: RuntimeConfig }) {
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState<string | undefined>();
  const run = (id: string, load: () => Promise<WalletAdapter | undefined>) => {
    setPending(id);
    setError(undefined);
    load()
      .then((wallet) => {
        if (!wallet) throw new Error('Freighter is not installed in this browser. Install it, or use another method.');
        return signInWithWallet(wallet);
      })
      .catch((err: unknown) => setError(err))
      .finally(() => setPending(undefined));
  };
  return (
    <Stack gap="xs">
      <Button variant="default" loading={pending === 'freighter'} onClick={() => run('freighter', freighterAdapter)}>
        Sign in with Freighter (Stellar wallet)
      </Button>
      {config.devSigner ? (
        <Button variant="default" loading={pending === 'dev'} onClick={() => run('dev', devSignerAdapter)}>
          Sign in with the development signer
        </Button>
      ) : null}
      {error ? <ErrorAlert error={error} /> : null}
    </Stack>
  );
}

export function SignInPage({ reason }: { reason?: string }) {
  const config = useRuntimeConfig();
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}`;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420} component="main">
        <Stack gap="md">
          <div>
            <Title order={1} size="h2">
              Sign in to Onboard
            </Title>
            <Text c="dimmed" size="sm">
              The operators’ dashboard: apps, keys, treasury, users and payments.
            </Text>
          </div>
          {reason === 'SESSION_EXPIRED' ? (
            <Alert color="yellow" variant="light">
              Your session ended. Sign in again to continue.
            </Alert>
          ) : null}
          {config.isPending ? <Text size="sm">Loading sign-in options…</Text> : null}
          {config.error ? <ErrorAlert error={config.error} /> : null}
          {config.data ? (
            <>
              <EmailSignIn devOutbox={config.data.devOutbox} />
              <Divider label="or" labelPosition="center" />
              <OAuthButtons config={config.data} returnTo={returnTo} />
              <WalletSignIn config={config.data} />
            </>
          ) : null}
        </Stack>
      </Paper>
    </Center>
  );
}
