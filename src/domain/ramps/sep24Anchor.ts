// Talking to a SEP-24 anchor: where it is (SEP-1 stellar.toml, fetched from the app's `anchorDomain`), signing in as
// the user (SEP-10: the anchor's challenge, signed with the user's custodial key by the service's `signChallenge`,
// traded for a JWT), and the JSON requests of SEP-12 and SEP-24 with their answers checked. Everything the anchor
// says is treated as hostile input: each field is read with its type checked, and an answer that is not what the SEP
// promises is an UpstreamFailure (the 502 SDK_RAMPS_ANCHOR_ERROR), never a TypeError.
//
// Nothing is cached between calls: a ramp call makes a handful of requests to the anchor anyway, a stellar.toml
// change (a rotated SIGNING_KEY, a moved server) takes effect at once, and a cache would be process-wide state the
// service's Deps do not carry. The JWT lives for one call and is never stored.
import { Networks, StrKey } from '@stellar/stellar-sdk';
import { parse as parseToml } from 'smol-toml';
import type { NetworkName } from '../../config';
import type { Deps } from '../deps';
import { RampRefusal, type RampCall, type RampDeps } from './providers';
import { UpstreamFailure, upstreamRequest, upstreamText, type UpstreamRequest } from './upstream';

const PASSPHRASES: Record<NetworkName, string> = { testnet: Networks.TESTNET, mainnet: Networks.PUBLIC };

/** The app network's passphrase: the anchor's stellar.toml and SEP-10 challenge must name the same network. */
export const passphraseOf = (network: NetworkName): string => PASSPHRASES[network];

/** SEP-1: a stellar.toml is at most 100 KB. */
const MAX_TOML_BYTES = 100_000;

/** The anchor as its stellar.toml describes it (SEP-1), with what this adapter needs checked. */
export interface AnchorToml {
  /** The app's `anchorDomain` as given (the SEP-10 home domain). */
  domain: string;
  transferServer: string;
  webAuthEndpoint: string;
  signingKey: string;
  kycServer?: string;
  /** [[CURRENCIES]]: the assets the anchor says it ramps (code, issuer; `anchor_asset` when it names its fiat). */
  currencies: { code: string; issuer?: string; fiat?: string }[];
}

const notConfigured = (message: string) => new RampRefusal({ kind: 'not_configured', message });

/** Plain-object check for JSON the anchor sent. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field of an anchor's answer; undefined when absent or null; anything else is an upstream failure. */
export function optionalString(obj: Record<string, unknown>, key: string, what: string, maxLength = 2048) {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > maxLength)
    throw new UpstreamFailure(`${what}: ${key} is not a string of at most ${maxLength} characters`);
  return value;
}

export function requiredString(obj: Record<string, unknown>, key: string, what: string, maxLength = 2048) {
  const value = optionalString(obj, key, what, maxLength);
  if (value === undefined || value === '') throw new UpstreamFailure(`${what}: ${key} is missing`);
  return value;
}

/** An http(s) URL the anchor gave: https only, http too with RAMPS_ALLOW_INSECURE (a local anchor). */
export function isWebUrl(deps: Pick<Deps, 'ramps'>, value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && (deps.ramps?.allowInsecure ?? false));
  } catch {
    return false;
  }
}

const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?$/i;

/**
 * Where the anchor's stellar.toml is. `https://<anchorDomain>` as SEP-1 says, except for a loopback domain with a port
 * (`127.0.0.1:PORT`, `localhost:PORT`) while RAMPS_ALLOW_INSECURE is on: a local anchor in development and tests has
 * no certificate. Any other domain stays https even then, so the setting never downgrades a real anchor.
 */
export function tomlUrlOf(deps: Pick<Deps, 'ramps'>, credentials: Record<string, string>): string {
  const domain = credentials.anchorDomain?.trim().toLowerCase();
  if (!domain) throw notConfigured('The SEP-24 anchor has no anchorDomain: set it in the ramp settings');
  if (!DOMAIN.test(domain))
    throw notConfigured(`The anchorDomain "${domain.slice(0, 100)}" is not a host name (like testanchor.stellar.org)`);
  const loopback = /^(127\.0\.0\.1|localhost):\d{1,5}$/.test(domain);
  const scheme = loopback && (deps.ramps?.allowInsecure ?? false) ? 'http' : 'https';
  return `${scheme}://${domain}/.well-known/stellar.toml`;
}

/** The anchor's stellar.toml, read and checked (SEP-1); a domain that publishes no usable SEP-24 anchor is refused. */
export async function discoverAnchor(
  deps: RampDeps,
  call: Pick<RampCall, 'credentials' | 'network'>,
): Promise<AnchorToml> {
  const url = tomlUrlOf(deps, call.credentials);
  const domain = new URL(url).host;
  const answer = await upstreamText(
    deps,
    { method: 'GET', url, headers: { accept: 'text/plain, application/toml, */*' } },
    MAX_TOML_BYTES,
  );
  if (answer.status === 404)
    throw notConfigured(`${domain} publishes no stellar.toml: check the anchorDomain in the ramp settings`);
  if (answer.status !== 200) throw new UpstreamFailure(`stellar.toml of ${domain}: answered ${answer.status}`);
  let toml: Record<string, unknown>;
  try {
    toml = parseToml(answer.text);
  } catch {
    throw new UpstreamFailure(`stellar.toml of ${domain}: not TOML`);
  }
  const what = `stellar.toml of ${domain}`;
  const passphrase = optionalString(toml, 'NETWORK_PASSPHRASE', what, 200);
  if (passphrase !== undefined && passphrase !== passphraseOf(call.network))
    throw notConfigured(`${domain} is an anchor on another network ("${passphrase}"), not ${call.network}`);
  const serverUrl = (key: string, required: boolean): string | undefined => {
    const value = optionalString(toml, key, what);
    if (value === undefined || value === '') {
      if (required) throw notConfigured(`${domain}'s stellar.toml has no ${key}: it is not a SEP-24 anchor`);
      return undefined;
    }
    if (!isWebUrl(deps, value)) throw notConfigured(`${domain}'s stellar.toml ${key} is not an https URL`);
    return value.replace(/\/+$/, '');
  };
  const transferServer = serverUrl('TRANSFER_SERVER_SEP0024', true)!;
  const webAuthEndpoint = serverUrl('WEB_AUTH_ENDPOINT', true)!;
  const kycServer = serverUrl('KYC_SERVER', false);
  const signingKey = optionalString(toml, 'SIGNING_KEY', what, 56);
  if (!signingKey || !StrKey.isValidEd25519PublicKey(signingKey))
    throw notConfigured(`${domain}'s stellar.toml has no valid SIGNING_KEY: SEP-10 sign-in is impossible`);
  return {
    domain,
    transferServer,
    webAuthEndpoint,
    signingKey,
    ...(kycServer !== undefined ? { kycServer } : {}),
    currencies: readCurrencies(toml.CURRENCIES, what),
  };
}

function readCurrencies(value: unknown, what: string): AnchorToml['currencies'] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UpstreamFailure(`${what}: CURRENCIES is not a list`);
  return value.filter(isRecord).flatMap((c) => {
    const code = optionalString(c, 'code', what, 12);
    if (!code) return []; // a currency described only by a template is no asset this adapter could match
    const issuer = optionalString(c, 'issuer', what, 56);
    const anchorAsset = optionalString(c, 'anchor_asset', what, 12);
    const fiat =
      c.anchor_asset_type === 'fiat' && anchorAsset && /^[A-Z]{3}$/.test(anchorAsset) ? anchorAsset : undefined;
    return [{ code, ...(issuer ? { issuer } : {}), ...(fiat ? { fiat } : {}) }];
  });
}

/**
 * A request to the anchor that must succeed (2xx) with a JSON object; a 4xx is an upstream failure too, with the
 * anchor's `error` text for the log. `what` names the step in failures ("the SEP-10 challenge").
 */
export async function anchorRequest(
  deps: Pick<Deps, 'ramps'>,
  request: UpstreamRequest,
  what: string,
): Promise<Record<string, unknown>> {
  const answer = await upstreamRequest(deps, request);
  if (answer.status < 200 || answer.status > 299) {
    const error = isRecord(answer.body) && typeof answer.body.error === 'string' ? `: ${answer.body.error}` : '';
    throw new UpstreamFailure(`${what}: the anchor answered ${answer.status}${error.slice(0, 300)}`);
  }
  if (!isRecord(answer.body)) throw new UpstreamFailure(`${what}: the answer is not a JSON object`);
  return answer.body;
}

/**
 * SEP-10 as the user's wallet: the anchor's challenge for the wallet's account, signed by the service (which checks
 * it is a challenge of this anchor's SIGNING_KEY for this home domain and network before signing; an external wallet
 * is refused there), traded for a JWT. The network is always the app's: a challenge for another one is refused here.
 */
export async function signIn(deps: RampDeps, call: RampCall, anchor: AnchorToml): Promise<string> {
  const passphrase = passphraseOf(call.network);
  const challengeUrl = new URL(anchor.webAuthEndpoint);
  challengeUrl.searchParams.set('account', call.user.wallet.publicKey);
  challengeUrl.searchParams.set('home_domain', anchor.domain);
  const what = 'the SEP-10 challenge';
  const challenge = await anchorRequest(deps, { method: 'GET', url: challengeUrl.toString() }, what);
  const transaction = requiredString(challenge, 'transaction', what, 20_000);
  const network = optionalString(challenge, 'network_passphrase', what, 200);
  if (network !== undefined && network !== passphrase)
    throw new UpstreamFailure(`${what}: for the network "${network}", not ${call.network}`);
  // SEP-10: the challenge's web_auth_domain is the host of WEB_AUTH_ENDPOINT, which may differ from the home domain.
  const signed = await call.signChallenge(
    transaction,
    passphrase,
    anchor.domain,
    anchor.signingKey,
    new URL(anchor.webAuthEndpoint).host,
  );
  const token = await anchorRequest(
    deps,
    { method: 'POST', url: anchor.webAuthEndpoint, body: { transaction: signed } },
    'the SEP-10 token',
  );
  return requiredString(token, 'token', 'the SEP-10 token', 8192);
}

/**
 * SEP-12: what the service knows of the user (only the email address) sent to the anchor's KYC server, so its
 * interactive flow can start from it. Best effort: the interactive flow collects whatever is missing, so an anchor
 * that refuses or fails here does not stop the ramp (logged).
 */
export async function shareCustomer(deps: RampDeps, call: RampCall, anchor: AnchorToml, jwt: string): Promise<void> {
  if (!anchor.kycServer || !call.user.email) return;
  try {
    await anchorRequest(
      deps,
      {
        method: 'PUT',
        url: `${anchor.kycServer}/customer`,
        headers: { authorization: `Bearer ${jwt}` },
        body: { account: call.user.wallet.publicKey, email_address: call.user.email },
      },
      'SEP-12 PUT /customer',
    );
  } catch (err) {
    if (!(err instanceof UpstreamFailure)) throw err;
    deps.log.warn({ anchor: anchor.domain, reason: err.reason }, 'the anchor did not take the customer info');
  }
}
