// What the Distribution area's rules and pushes share: how an asset is written and offered, how an amount typed in a
// form is checked before sending, and what a form says when the app has no distribution wallet.
import { Link } from 'react-router';
import { Alert, Anchor, Stack, Text } from '@mantine/core';
import type { App } from '../../../generated/dashboard/types.gen';
import { CopyValue } from '../components/CopyValue';
import { shortKey } from '../components/format';
import { assetLabel } from '../treasury/assets';

/** "native" -> "XLM", "USDC:G..." -> "USDC". */
export const assetCode = (asset: string) => (asset === 'native' ? 'XLM' : (asset.split(':')[0] ?? asset));

/** What a distribution can pay: XLM or one of the app's assets. */
export function distributionAssetOptions(app: App): { value: string; label: string }[] {
  return [
    { value: 'native', label: 'XLM (native)' },
    ...app.assets.map((asset) => ({ value: asset, label: assetLabel(asset) })),
  ];
}

/**
 * What is wrong with a typed amount (Amount.yaml, PositiveAmount.yaml: a decimal string with at most 7 decimal places
 * and `maxWholeDigits` digits before the point, greater than 0), in words; undefined when it is fine.
 */
export function amountProblem(value: string, { empty, maxWholeDigits }: { empty: string; maxWholeDigits: number }) {
  if (!value) return empty;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value)) return 'A decimal number such as 5 or 1.5 (with a point, no sign).';
  if ((value.split('.')[1] ?? '').length > 7) return 'At most 7 decimal places (0.0000001 is the smallest amount).';
  const whole = new RegExp(`^(0|[1-9][0-9]{0,${maxWholeDigits - 1}})(\\.[0-9]{1,7})?$`);
  if (!whole.test(value)) return `At most ${maxWholeDigits} digits before the point, without leading zeros.`;
  if (!/[1-9]/.test(value)) return 'The amount must be greater than 0.';
  return undefined;
}

/** The asset's code and, for an issued asset, its issuer to copy; `removedNote` when the app no longer has it. */
export function AssetCell({ app, asset, removedNote }: { app: App; asset: string; removedNote?: string }) {
  const [code, issuer] = asset.split(':');
  const removed = removedNote !== undefined && asset !== 'native' && !app.assets.includes(asset);
  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {asset === 'native' ? 'XLM' : code}
      </Text>
      {issuer ? <CopyValue value={issuer} label={`issuer of ${code}`} display={shortKey(issuer)} /> : null}
      {removed ? (
        <Text size="xs" c="red">
          {removedNote}
        </Text>
      ) : null}
    </Stack>
  );
}

/** DISTRIBUTION_NO_DISTRIBUTION_WALLET in a form: what is paid from it, where to set it up, then what to do again. */
export function NoDistributionWalletAlert({ app, paid, then }: { app: App; paid: string; then: string }) {
  return (
    <Alert color="red" variant="light" title="No distribution wallet" role="alert">
      {paid} from the app’s distribution wallet on {app.network}, and this app has none. Set one up on the{' '}
      <Anchor component={Link} to={`/apps/${app.appId}/treasury`}>
        Treasury page
      </Anchor>
      , then {then}.
    </Alert>
  );
}
