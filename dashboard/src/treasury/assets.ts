// How the treasury pages write Stellar assets: `native` is XLM; an issued asset is its code, with its issuer
// shortened (two assets may share a code, so the issuer is never dropped).
import { shortKey } from '../components/format';

/** "native" -> "XLM"; "USDC:GBBD…" -> "USDC (GBBD47…3ZLLFLA5)". */
export function assetLabel(asset: string): string {
  if (asset === 'native') return 'XLM';
  const [code, issuer] = asset.split(':');
  return issuer ? `${code} (${shortKey(issuer)})` : asset;
}
