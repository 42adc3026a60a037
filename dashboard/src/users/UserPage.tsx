// One end user of the app: who they are, how they sign in, and their wallet; an unfunded wallet on the app's network
// can be funded from here (the Fund action), which locks its reserve in the app's funding wallet.
import { useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconCircleCheck } from '@tabler/icons-react';
import {
  fundAppUserWalletMutation,
  getAppUserOptions,
  getAppUserQueryKey,
  getTreasuryQueryKey,
  listAppUsersQueryKey,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { App, User, Wallet } from '../../../generated/dashboard/types.gen';
import { failureOf } from '../api/errors';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyValue } from '../components/CopyValue';
import { formatDate, trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { WalletStateBadge } from './UsersPage';

const PROVIDER_NAMES: Record<User['providers'][number], string> = {
  email: 'Email code',
  google: 'Google',
  github: 'GitHub',
  stellar: 'Stellar wallet',
};

/** The reserve a funded wallet locks: 1 XLM + 0.5 XLM per configured asset, i.e. (2 + assets) half-XLMs. */
function reserveXlm(assets: number): string {
  const halves = 2 + assets;
  return halves % 2 === 0 ? String(halves / 2) : `${(halves - 1) / 2}.5`;
}

interface FundOutcome {
  status: 'funded' | 'alreadyFunded';
  publicKey: string;
  startingBalance?: string;
}

function FundAction({ app, user, wallet }: { app: App; user: User; wallet: Wallet }) {
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<FundOutcome | undefined>();
  // One key per intended funding, kept across retries of it so a repeat after a lost answer cannot fund twice.
  const idempotencyKey = useRef(crypto.randomUUID());
  const fund = useMutation({ ...fundAppUserWalletMutation() });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({
        queryKey: getAppUserQueryKey({ path: { appId: app.appId, userId: user.userId } }),
      }),
      // Matches every page and search of the list (query keys match by prefix).
      queryClient.invalidateQueries({ queryKey: listAppUsersQueryKey({ path: { appId: app.appId } }) }),
      queryClient.invalidateQueries({ queryKey: getTreasuryQueryKey({ path: { appId: app.appId } }) }),
    ]);

  const run = async () => {
    try {
      const { content } = await fund.mutateAsync({
        path: { appId: app.appId, userId: user.userId },
        headers: { 'Idempotency-Key': idempotencyKey.current },
      });
      setOutcome({ status: 'funded', publicKey: content.publicKey, startingBalance: content.startingBalance });
      notifications.show({ color: 'green', message: 'The wallet is funded and can transact.' });
    } catch (error) {
      // Already funded is the state the operator asked for: report it, not as a failure.
      if (failureOf(error).code !== 'WALLET_ALREADY_FUNDED') throw error;
      setOutcome({ status: 'alreadyFunded', publicKey: wallet.publicKey });
      notifications.show({ color: 'blue', message: 'The wallet was already funded.' });
    }
    idempotencyKey.current = crypto.randomUUID();
    await refresh();
  };

  const startingBalance = trimAmount(app.startingBalanceXlm);
  const reserve = reserveXlm(app.assets.length);
  return (
    <Stack gap="xs">
      {outcome ? (
        <Alert
          color="green"
          variant="light"
          icon={<IconCircleCheck size={18} />}
          title={outcome.status === 'funded' ? 'Wallet funded' : 'Wallet already funded'}
        >
          {outcome.status === 'funded'
            ? `The reserve is sponsored on-chain${outcome.startingBalance && outcome.startingBalance !== '0' ? ` and ${trimAmount(outcome.startingBalance)} XLM was paid to the wallet as its starting balance` : ''}.`
            : 'The wallet was funded before this request; nothing changed.'}
        </Alert>
      ) : null}
      {!wallet.funded ? (
        wallet.custody === 'external' ? (
          <Text size="sm" c="dimmed">
            This is the user’s own Stellar wallet: Onboard holds no key for it, so it cannot be funded from here. It is
            funded once its account exists on {app.network}.
          </Text>
        ) : (
          <Group>
            <ConfirmButton
              label="Fund wallet"
              color="indigo"
              variant="filled"
              title="Fund this wallet?"
              message={
                <Stack gap="xs">
                  <Text size="sm">
                    The app’s funding wallet creates the account on {app.network} and sponsors its reserve:{' '}
                    <b>{reserve} XLM</b> (1 XLM + 0.5 XLM for each of the {app.assets.length} configured{' '}
                    {app.assets.length === 1 ? 'asset' : 'assets'}, whose trustlines are added). The reserve stays
                    locked in the funding wallet for as long as it sponsors this wallet; it is not given to the user.
                  </Text>
                  {startingBalance !== '0' ? (
                    <Text size="sm">
                      The starting balance of <b>{startingBalance} XLM</b> is also paid to the wallet as spendable XLM.
                    </Text>
                  ) : null}
                  <Text size="sm">This is recorded in the audit log.</Text>
                </Stack>
              }
              confirmLabel="Fund wallet"
              onConfirm={run}
            />
          </Group>
        )
      ) : null}
    </Stack>
  );
}

function WalletCard({ app, user, wallet }: { app: App; user: User; wallet: Wallet }) {
  const onAppNetwork = wallet.network === app.network;
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={3} size="h4">
            {wallet.network === 'mainnet' ? 'Mainnet' : 'Testnet'} wallet
          </Title>
          <WalletStateBadge wallet={wallet} />
        </Group>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Public key
          </Text>
          <CopyValue value={wallet.publicKey} label="public key" />
        </Stack>
        <Table variant="vertical" withTableBorder={false} verticalSpacing={4} layout="fixed">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={140}>Wallet id</Table.Th>
              <Table.Td>
                <CopyValue value={wallet.walletId} label="wallet id" />
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Custody</Table.Th>
              <Table.Td>
                {wallet.custody === 'custodial'
                  ? 'Custodial: Onboard holds the key under key management'
                  : 'External: the user’s own Stellar wallet signs'}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>State</Table.Th>
              <Table.Td>
                {wallet.funded
                  ? `Funded${wallet.fundedAt ? ` ${formatDate(wallet.fundedAt)}` : ''}: it can transact`
                  : 'Unfunded: the address exists but has no reserve, so it cannot transact yet'}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Created</Table.Th>
              <Table.Td>{formatDate(wallet.createdAt)}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        {onAppNetwork ? (
          <FundAction app={app} user={user} wallet={wallet} />
        ) : (
          <Text size="sm" c="dimmed">
            Not on this app’s network ({app.network}).
          </Text>
        )}
      </Stack>
    </Card>
  );
}

function UserDetails({ app, user }: { app: App; user: User }) {
  return (
    <Stack gap="lg">
      <Card withBorder radius="md" padding="lg">
        <Table variant="vertical" withTableBorder={false} verticalSpacing={6} layout="fixed">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={140}>User id</Table.Th>
              <Table.Td>
                <CopyValue value={user.userId} label="user id" />
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>External id</Table.Th>
              <Table.Td>
                {user.externalId ? (
                  <CopyValue value={user.externalId} label="external id" />
                ) : (
                  <Text size="sm" c="dimmed">
                    Not set (your backend sets it with the Server API)
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Td>{user.email ?? <Text c="dimmed">None</Text>}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Signs in with</Table.Th>
              <Table.Td>
                <Group gap={6}>
                  {user.providers.map((p) => (
                    <Badge key={p} variant="light" color="gray">
                      {PROVIDER_NAMES[p]}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Created</Table.Th>
              <Table.Td>{formatDate(user.createdAt)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Last seen</Table.Th>
              <Table.Td>{user.lastSeenAt ? formatDate(user.lastSeenAt) : 'Never'}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Card>
      <div>
        <Title order={2} size="h3" mb="sm">
          {user.wallets.length === 1 ? 'Wallet' : 'Wallets'}
        </Title>
        {user.wallets.length === 0 ? (
          <Text c="dimmed" size="sm">
            No wallet yet: one is created at the user’s next sign-in on {app.network}.
          </Text>
        ) : (
          <SimpleGrid cols={{ base: 1, lg: user.wallets.length > 1 ? 2 : 1 }}>
            {user.wallets.map((wallet) => (
              <WalletCard key={wallet.walletId} app={app} user={user} wallet={wallet} />
            ))}
          </SimpleGrid>
        )}
      </div>
    </Stack>
  );
}

export function UserPage() {
  const app = useCurrentApp();
  const { userId = '' } = useParams();
  const user = useQuery(getAppUserOptions({ path: { appId: app.appId, userId } }));
  const title = user.data
    ? (user.data.content.email ?? user.data.content.externalId ?? user.data.content.userId)
    : 'User';
  return (
    <>
      <PageHeader
        title={title}
        description={`A user of ${app.name}.`}
        actions={
          <Button
            component={Link}
            to={`/apps/${app.appId}/users`}
            variant="default"
            leftSection={<IconArrowLeft size={16} />}
          >
            All users
          </Button>
        }
      />
      <QueryState query={user} rows={6}>
        {({ content }) => <UserDetails app={app} user={content} />}
      </QueryState>
    </>
  );
}
