// The app's own wallets (Treasury): which wallet pays reserves, fees and distribution claims, what each holds, which
// are low and where to send XLM to top them up; and splitting the one global wallet into separate role wallets (or
// joining them back).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Card, Group, List, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import {
  getTreasuryOptions,
  getTreasuryQueryKey,
  updateTreasuryWalletsMutation,
} from '../../../generated/dashboard/@tanstack/react-query.gen';
import type { Treasury } from '../../../generated/dashboard/types.gen';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyValue } from '../components/CopyValue';
import { trimAmount } from '../components/format';
import { PageHeader } from '../components/PageHeader';
import { QueryState } from '../components/QueryState';
import { useCurrentApp } from '../layout/currentApp';
import { assetLabel } from './assets';

type TreasuryWallet = Treasury['wallets'][number];
type Role = TreasuryWallet['role'];

const ROLE_NAMES: Record<Role, string> = {
  global: 'Global wallet',
  funding: 'Funding wallet',
  gas: 'Gas wallet',
  distribution: 'Distribution wallet',
};

const ROLE_DUTIES: Record<Role, string> = {
  global:
    'Pays every role: the reserves of the user wallets it activates (funding), the fee of every sponsored transaction (gas) and distribution claims.',
  funding:
    'Locks the reserve of each user wallet it activates (1 XLM + 0.5 XLM per configured asset) for as long as it sponsors the wallet.',
  gas: 'Pays the fee of every sponsored transaction. At or below its minimum, sponsorship pauses and users’ transactions are refused.',
  distribution: 'Holds the assets your distribution rules pay out, and pays each claim.',
};

/** What a low wallet stops doing, so the alert says why topping it up matters. */
const LOW_EFFECT: Record<Role, string> = {
  global: 'new user wallets may not be activated and sponsorship pauses once it reaches the gas minimum',
  funding: 'new user wallets may not be activated',
  gas: 'sponsored transactions are refused (TX_POLICY_GAS_BALANCE_LOW)',
  distribution: 'distribution claims may fail',
};

function xlmBalance(wallet: TreasuryWallet): string | undefined {
  return wallet.balances.find((b) => b.asset === 'native')?.balance;
}

function LowBalanceAlert({ wallets, network }: { wallets: TreasuryWallet[]; network: string }) {
  const low = wallets.filter((w) => w.low);
  if (low.length === 0) return null;
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={20} />}
      title={
        low.length === 1
          ? `The ${ROLE_NAMES[low[0]!.role].toLowerCase()} is low on XLM`
          : `${low.length} wallets are low on XLM`
      }
      mb="lg"
    >
      <List size="sm" spacing={4}>
        {low.map((w) => (
          <List.Item key={w.role}>
            {ROLE_NAMES[w.role]}: {trimAmount(xlmBalance(w) ?? '0')} XLM, at or below its minimum of{' '}
            {trimAmount(w.minimumBalanceXlm)} XLM. Until it is topped up, {LOW_EFFECT[w.role]}.
          </List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        Send XLM on {network} to the wallet’s address, shown below.
      </Text>
    </Alert>
  );
}

function WalletCard({ wallet, network }: { wallet: TreasuryWallet; network: string }) {
  const exists = wallet.balances.length > 0;
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={3} size="h4">
            {ROLE_NAMES[wallet.role]}
          </Title>
          {wallet.low ? (
            <Badge color="red" variant="filled" leftSection={<IconAlertTriangle size={12} />}>
              Low balance
            </Badge>
          ) : (
            <Badge color="green" variant="light" leftSection={<IconCircleCheck size={12} />}>
              Balance OK
            </Badge>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          {ROLE_DUTIES[wallet.role]}
        </Text>
        {exists ? (
          <Table withTableBorder={false} verticalSpacing={4} aria-label={`${ROLE_NAMES[wallet.role]} balances`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Asset</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {wallet.balances.map((b) => (
                <Table.Tr key={b.asset}>
                  <Table.Td title={b.asset === 'native' ? undefined : b.asset}>{assetLabel(b.asset)}</Table.Td>
                  <Table.Td ta="right" ff="monospace">
                    {trimAmount(b.balance)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
            This account does not exist on {network} yet. Create it by sending at least 1 XLM to the address below (a
            create-account payment).
          </Alert>
        )}
        <Text size="sm">
          Minimum: <b>{trimAmount(wallet.minimumBalanceXlm)} XLM</b>
          {wallet.low ? ' (the balance is at or below it)' : ''}
        </Text>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Top up: send XLM{wallet.role === 'distribution' ? ' (and the assets to distribute)' : ''} on {network} to
          </Text>
          <CopyValue value={wallet.publicKey} label={`${ROLE_NAMES[wallet.role].toLowerCase()} address`} />
        </Stack>
      </Stack>
    </Card>
  );
}

function LayoutSection({ treasury }: { treasury: Treasury }) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const update = useMutation({
    ...updateTreasuryWalletsMutation(),
    onSuccess: async (data) => {
      queryClient.setQueryData(getTreasuryQueryKey({ path: { appId: app.appId } }), data);
      await queryClient.invalidateQueries({ queryKey: getTreasuryQueryKey({ path: { appId: app.appId } }) });
      notifications.show({
        color: 'green',
        message:
          data.content.layout === 'split'
            ? 'The wallets are split. Top up the gas wallet before more transactions are sponsored.'
            : 'One global wallet now fills every role.',
      });
    },
  });
  const setLayout = (layout: 'single' | 'split') =>
    update.mutateAsync({
      path: { appId: app.appId },
      body: { layout },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
  const split = treasury.layout === 'split';
  return (
    <Stack gap="sm" mt="xl">
      <Title order={2} size="h3">
        Wallet roles
      </Title>
      <Text size="sm">
        {split
          ? 'Split: separate funding, gas and distribution wallets, so each can be topped up and watched on its own.'
          : 'Single: one global wallet pays reserves, fees and distribution claims. Splitting gives each role its own wallet, so fee spending cannot drain the XLM that activates new users.'}
      </Text>
      <Group>
        {split ? (
          <ConfirmButton
            label="Use one wallet for every role"
            color="orange"
            title="Join the wallets into one?"
            message={
              <Stack gap="xs">
                <Text size="sm">
                  The gas and distribution wallets’ balances (XLM and assets) are moved to the funding wallet, which
                  becomes the global wallet again, and the two wallets are retired.
                </Text>
                <Text size="sm">Do not send anything to their addresses afterwards.</Text>
              </Stack>
            }
            confirmLabel="Join wallets"
            onConfirm={() => setLayout('single')}
          />
        ) : (
          <ConfirmButton
            label="Split into funding, gas and distribution wallets"
            color="indigo"
            title="Split the global wallet?"
            message={
              <Stack gap="xs">
                <Text size="sm">
                  The global wallet becomes the funding wallet (it keeps sponsoring the reserves it already pays). New
                  gas and distribution wallets are created on {treasury.network}, their account reserves sponsored by
                  the funding wallet, with no XLM of their own.
                </Text>
                <Text size="sm" fw={500}>
                  Sponsored transactions pause until you top up the new gas wallet, and distribution claims need the
                  assets sent to the new distribution wallet.
                </Text>
                <Text size="sm">You can join them back later.</Text>
              </Stack>
            }
            confirmLabel="Split wallets"
            onConfirm={() => setLayout('split')}
          />
        )}
      </Group>
    </Stack>
  );
}

export function TreasuryPage() {
  const app = useCurrentApp();
  const treasury = useQuery(getTreasuryOptions({ path: { appId: app.appId } }));
  return (
    <>
      <PageHeader
        title="Treasury"
        description={`The app’s own wallets on ${app.network}: they pay user wallets’ reserves, transaction fees and distribution claims, so your users never need XLM.`}
      />
      <QueryState query={treasury} rows={6}>
        {({ content }) => (
          <>
            <LowBalanceAlert wallets={content.wallets} network={content.network} />
            <SimpleGrid cols={{ base: 1, sm: 3 }} mb="lg">
              <Card withBorder radius="md" padding="md">
                <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                  Layout
                </Text>
                <Text fw={600} size="lg">
                  {content.layout === 'split' ? 'Split (3 wallets)' : 'Single (1 wallet)'}
                </Text>
              </Card>
              <Card withBorder radius="md" padding="md">
                <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                  Reserve per new user wallet
                </Text>
                <Text fw={600} size="lg">
                  {trimAmount(content.reservePerWalletXlm)} XLM
                </Text>
                <Text size="xs" c="dimmed">
                  1 XLM + 0.5 XLM per configured asset
                </Text>
              </Card>
              <Card withBorder radius="md" padding="md">
                <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                  Reserve locked now
                </Text>
                <Text fw={600} size="lg">
                  {trimAmount(content.lockedReserveXlm)} XLM
                </Text>
                <Text size="xs" c="dimmed">
                  For the app’s funded user wallets
                </Text>
              </Card>
            </SimpleGrid>
            <Title order={2} size="h3" mb="sm">
              Wallets
            </Title>
            <SimpleGrid cols={{ base: 1, md: content.wallets.length > 1 ? 2 : 1, xl: content.wallets.length }}>
              {content.wallets.map((wallet) => (
                <WalletCard key={wallet.role} wallet={wallet} network={content.network} />
              ))}
            </SimpleGrid>
            <LayoutSection treasury={content} />
          </>
        )}
      </QueryState>
    </>
  );
}
