// Every /apps/:appId page: the app is loaded first (so pages can rely on it and on the operator's role), an archived
// app says so above every page, and an app the operator cannot see is a clear "not found" rather than a broken page.
import { Outlet, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { Alert } from '@mantine/core';
import { getAppOptions } from '../../../generated/dashboard/@tanstack/react-query.gen';
import { QueryState } from '../components/QueryState';
import { CurrentAppContext } from './currentApp';

export function AppLayout() {
  const { appId = '' } = useParams();
  const app = useQuery(getAppOptions({ path: { appId } }));
  return (
    <QueryState query={app} rows={6}>
      {(data) => (
        <CurrentAppContext.Provider value={data.content}>
          {data.content.status === 'archived' ? (
            <Alert color="orange" variant="light" mb="md" title="This app is archived">
              Its API keys and SDK access are disabled. The owner can restore it from the apps list.
            </Alert>
          ) : null}
          <Outlet />
        </CurrentAppContext.Provider>
      )}
    </QueryState>
  );
}
