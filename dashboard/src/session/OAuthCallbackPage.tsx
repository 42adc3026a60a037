// Where Google and GitHub send the operator back (/dashboard/auth/callback): finishes the sign-in once, then goes
// where the operator was headed.
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, Center, Loader, Paper, Stack, Text } from '@mantine/core';
import { ErrorAlert } from '../components/ErrorAlert';
import { completeOAuthSignIn } from './oauth';

export function OAuthCallbackPage() {
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const started = useRef(false);
  useEffect(() => {
    // StrictMode runs effects twice; the code and state are single-use.
    if (started.current) return;
    started.current = true;
    completeOAuthSignIn(new URL(window.location.href))
      .then((returnTo) => void navigate(returnTo.startsWith('/auth/') ? '/' : returnTo, { replace: true }))
      .catch((err: unknown) => setError(err));
  }, [navigate]);
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" radius="md" maw={420} w="100%" component="main">
        {error ? (
          <Stack>
            <ErrorAlert error={error} title="Sign-in did not finish" />
            <Button onClick={() => void navigate('/', { replace: true })}>Back to sign-in</Button>
          </Stack>
        ) : (
          <Stack align="center">
            <Loader aria-label="Signing in" />
            <Text>Finishing sign-in…</Text>
          </Stack>
        )}
      </Paper>
    </Center>
  );
}
