// An app's Domains settings: allowed origins (CORS and publishable-key requests carrying an Origin; the gate reads
// them from app_origins) and OAuth redirect URIs (end-user Google and GitHub sign-in). Both lists match exactly, so
// each entry is accepted only in the one form a browser or OAuth client presents: nothing is silently rewritten.
import type { Knex } from 'knex';
import { listAppOrigins, normalizeOrigin } from './store';

export interface AppDomains {
  origins: string[];
  redirectUris: string[];
}

export const MAX_DOMAIN_ENTRIES = 50;

// The contract's forms (AppDomains.yaml): the router checks them already; repeated here so the rule holds for any
// caller of replaceAppDomains.
const ORIGIN_FORM = /^(https:\/\/[a-z0-9]([a-z0-9.-]*[a-z0-9])?|http:\/\/(localhost|127\.0\.0\.1))(:[0-9]{1,5})?$/;
const REDIRECT_URI_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s*#]+$/;
/** Schemes a browser would run or read locally instead of delivering an authorization code to an app. */
const SCRIPT_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

function originProblem(value: string): string | undefined {
  if (!ORIGIN_FORM.test(value)) {
    return 'must be an origin without path or wildcard: https://host[:port] in lower case (http only for localhost and 127.0.0.1)';
  }
  const origin = normalizeOrigin(value);
  if (!origin) return 'is not a valid origin (check the port)';
  // Browsers send the canonical form (no default port, no leading zeros, IPv4 in dotted decimal); another spelling
  // would never match.
  if (origin !== value) return `must be written as ${origin}`;
  return undefined;
}

function redirectUriProblem(value: string): string | undefined {
  if (!REDIRECT_URI_FORM.test(value)) return 'must be an exact URI (scheme://...) without wildcard or fragment';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URI';
  }
  if (SCRIPT_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  return undefined;
}

function listProblems(
  field: keyof AppDomains,
  values: string[],
  problem: (value: string) => string | undefined,
  out: Record<string, string[]>,
): void {
  if (values.length > MAX_DOMAIN_ENTRIES) out[field] = [`must have at most ${MAX_DOMAIN_ENTRIES} entries`];
  const seen = new Map<string, number>();
  values.forEach((value, i) => {
    const messages: string[] = [];
    const p = problem(value);
    if (p) messages.push(p);
    const first = seen.get(value);
    if (first === undefined) seen.set(value, i);
    else messages.push(`is a duplicate of ${field}.${first}`);
    if (messages.length) out[`${field}.${i}`] = messages;
  });
}

/** The field errors of a Domains update, keyed like the router's (`origins.1`); empty when it is valid. */
export function domainsFieldErrors(domains: AppDomains): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  listProblems('origins', domains.origins, originProblem, out);
  listProblems('redirectUris', domains.redirectUris, redirectUriProblem, out);
  return out;
}

export async function getAppDomains(db: Knex, appId: string): Promise<AppDomains> {
  const redirectUris = (await db('app_redirect_uris')
    .where({ app_id: appId })
    .orderBy('position')
    .pluck('uri')) as string[];
  return { origins: await listAppOrigins(db, appId), redirectUris };
}

/** Replaces both lists (validated with domainsFieldErrors first). Call inside a transaction: all or nothing. */
export async function replaceAppDomains(trx: Knex, appId: string, domains: AppDomains): Promise<void> {
  await trx('app_origins').where({ app_id: appId }).delete();
  await trx('app_redirect_uris').where({ app_id: appId }).delete();
  if (domains.origins.length) {
    await trx('app_origins').insert(domains.origins.map((origin, position) => ({ app_id: appId, origin, position })));
  }
  if (domains.redirectUris.length) {
    await trx('app_redirect_uris').insert(
      domains.redirectUris.map((uri, position) => ({ app_id: appId, uri, position })),
    );
  }
}
