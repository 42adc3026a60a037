// A form over settings the service stored (an app's sign-in providers, its KYC providers): loading, failed and retry
// as every read (QueryState); the form re-created after each save, so it starts again from what was stored; and for
// an archived app, whose settings answer 404, a sentence saying why there is nothing instead of "not found".
import { Fragment, useState, type ReactNode } from 'react';
import { Stack, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { App } from '../../../generated/dashboard/types.gen';
import { QueryState } from './QueryState';

export function SavedSettings<T>({
  app,
  what,
  heading,
  query,
  rows,
  children,
}: {
  app: App;
  /** What the settings are, for the archived app's sentence ("sign-in providers"). */
  what: string;
  /** Shown above that sentence (the form shows its own). */
  heading?: ReactNode;
  /** The read, disabled for an archived app. */
  query: UseQueryResult<T, unknown>;
  rows?: number;
  /** The form over the stored settings; it calls `onSaved` after a save. */
  children: (stored: T, onSaved: () => void) => ReactNode;
}) {
  const [version, setVersion] = useState(0);
  if (app.status !== 'active') {
    return (
      <Stack gap="xs">
        {heading}
        <Text size="sm" c="dimmed">
          An archived app’s {what} cannot be read or changed until the owner restores it.
        </Text>
      </Stack>
    );
  }
  return (
    <QueryState query={query} {...(rows !== undefined ? { rows } : {})}>
      {(stored) => <Fragment key={version}>{children(stored, () => setVersion((v) => v + 1))}</Fragment>}
    </QueryState>
  );
}
