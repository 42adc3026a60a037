// The API key format of the interface spec: `<pub|sec>_<testnet|mainnet>_<random part>`. The prefix fixes the key's
// type and network; the random part is base62.
export type ApiKeyType = 'publishable' | 'secret';
export type ApiKeyNetwork = 'testnet' | 'mainnet';

export interface PresentedApiKey {
  type: ApiKeyType;
  network: ApiKeyNetwork;
  /** The whole key as presented. Never log it. */
  raw: string;
}

const KEY_PATTERN = /^(pub|sec)_(testnet|mainnet)_([A-Za-z0-9]{24,128})$/;

/** Parses a presented key; undefined when it is not of the spec's form. */
export function parseApiKey(raw: string): PresentedApiKey | undefined {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return undefined;
  return {
    type: match[1] === 'pub' ? 'publishable' : 'secret',
    network: match[2] as ApiKeyNetwork,
    raw,
  };
}
