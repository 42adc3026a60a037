// The issued assets an app configures (a trustline for each on new wallets), as `CODE:ISSUER`. The contract's pattern
// checks the form; the issuer's StrKey checksum is checked here, since a trustline to a mistyped issuer would lock a
// reserve for an asset nobody issues.
import { StrKey } from '@stellar/stellar-sdk';

/** The field errors of an assets list, keyed like the router's (`assets.1`); empty when it is valid. */
export function assetsFieldErrors(assets: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const seen = new Set<string>();
  assets.forEach((asset, i) => {
    const messages: string[] = [];
    const [code, issuer, ...rest] = asset.split(':');
    if (asset === 'native') messages.push('native XLM needs no trustline: list issued assets only');
    else if (!code || !/^[A-Za-z0-9]{1,12}$/.test(code) || !issuer || rest.length) messages.push('must be CODE:ISSUER');
    else if (!StrKey.isValidEd25519PublicKey(issuer))
      messages.push('the issuer is not a valid Stellar account id (G..., checksum)');
    if (seen.has(asset)) messages.push('is listed twice');
    seen.add(asset);
    if (messages.length) out[`assets.${i}`] = messages;
  });
  return out;
}
