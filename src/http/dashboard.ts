// The operators' dashboard (dashboard/, a Vite + React app built with `base: '/dashboard/'`) served from its built
// directory (Config.dashboard.dir, written by `npm run dashboard:build`):
//   - /dashboard redirects to /dashboard/;
//   - hashed assets (/dashboard/assets/*) are cached for a year, immutable (a new build has new names); a missing one
//     is a 404, never the page (a browser holding an old page must not run HTML as a script);
//   - any other GET or HEAD under /dashboard/ that is no file (deep links, reloads) answers the app's index.html,
//     revalidated on every load (no-cache) so a new build is picked up at once; other files of the build likewise;
//   - not built: 503 with a small page that says how to build it;
//   - /dashboard/config.json: what the app must know at run time and cannot build in;
//   - /dashboard/dev/outbox?to=<email>: development only (Config.dashboard.devOutboxView, and only while mail goes to
//     the dev outbox), the newest messages to an address, so the sign-in page can show a developer their code.
// Every page here gets the dashboard's own CSP (securityHeaders.ts), not the API's. The router is mounted at /dashboard
// (app.ts): its paths are relative to it, and an API request never enters it.
import { join } from 'node:path';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { DEFAULT_DASHBOARD_SETTINGS, DEFAULT_OAUTH_SETTINGS, type OAuthSettings } from '../config';
import type { Deps } from '../domain/deps';
import { AppError } from '../domain/errors';
import { DEFAULT_SEP10_SETTINGS } from '../domain/sep10/challenges';
import { dashboardContentSecurityPolicy } from './securityHeaders';

/** Where the dashboard's OAuth sign-in comes back to (the app's route); an allowed redirect URI must name it. */
export const DASHBOARD_OAUTH_CALLBACK_PATH = '/dashboard/auth/callback';

/** How many messages the dev outbox view answers. */
const OUTBOX_VIEW_LIMIT = 5;
const MAX_EMAIL_LENGTH = 254;
/** One address: no spaces, controls, or U+FFFD (what a query's invalid UTF-8 decodes to: no address anyone has). */
const EMAIL = /^[^\s@\p{Cc}\uFFFD]+@[^\s@\p{Cc}\uFFFD]+$/u;

/** GET /dashboard/config.json. */
export interface DashboardRuntimeConfig {
  version: string;
  operatorSignIn: {
    email: true;
    google: boolean;
    github: boolean;
    stellar: { network: 'testnet' | 'mainnet'; homeDomain: string };
  };
  /** The allowed OAuth redirect URI that comes back to this dashboard (DASHBOARD_OAUTH_REDIRECT_URIS), if any. */
  oauthRedirectUri: string | null;
  /** Whether GET /dashboard/dev/outbox answers. */
  devOutbox: boolean;
  /** Whether to offer the local development Stellar signer (SEP-10 on testnet played by the localnet). */
  devSigner: boolean;
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Onboard dashboard: not built</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>The dashboard is not built</h1>
<p>Build it with <code>npm run dashboard:build</code> (<code>make run</code> builds it whenever its sources change),
then reload this page. A service that serves a build from elsewhere names its directory in <code>DASHBOARD_DIR</code>.</p>
</body></html>
`;

export function dashboardRouter(deps: Deps): Router {
  const settings = deps.dashboard ?? DEFAULT_DASHBOARD_SETTINGS;
  const outbox = settings.devOutboxView ? deps.mailer.outbox : undefined;
  const router = Router({ strict: true });

  router.use(dashboardContentSecurityPolicy);

  // Mounted, /dashboard and /dashboard/ both arrive here as '/': only the first is redirected.
  router.get('/', (req, res, next) => {
    const query = req.originalUrl.indexOf('?');
    if ((query === -1 ? req.originalUrl : req.originalUrl.slice(0, query)).endsWith('/')) return next();
    res.redirect(301, `/dashboard/${query === -1 ? '' : req.originalUrl.slice(query)}`);
  });

  router.get('/config.json', (req, res) => {
    const oauth = deps.oauth ?? DEFAULT_OAUTH_SETTINGS;
    const sep10 = deps.sep10 ?? DEFAULT_SEP10_SETTINGS;
    const config: DashboardRuntimeConfig = {
      version: deps.version,
      operatorSignIn: {
        email: true,
        google: oauth.dashboard.google !== undefined,
        github: oauth.dashboard.github !== undefined,
        stellar: { network: sep10.network, homeDomain: sep10.homeDomain },
      },
      oauthRedirectUri: oauthRedirectUriFor(oauth, requestOrigin(req), deps.publicUrl),
      devOutbox: outbox !== undefined,
      devSigner: settings.devSigner,
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(config);
  });

  router.get('/dev/outbox', (req, res, next) => {
    // 1. there only in development; elsewhere the same 404 as any unknown path
    if (!outbox) return next(new AppError('NOT_FOUND', { message: 'No such path' }));
    // 2. validate: one address
    const to = req.query.to;
    if (typeof to !== 'string' || to.length > MAX_EMAIL_LENGTH || !EMAIL.test(to)) {
      return next(
        new AppError('VALIDATION_ERROR', {
          message: 'Request validation failed',
          details: {
            fieldErrors: { 'query.to': [`must be an email address of at most ${MAX_EMAIL_LENGTH} characters`] },
          },
        }),
      );
    }
    // 3. read and answer, newest first
    outbox
      .read({ to, limit: OUTBOX_VIEW_LIMIT })
      .then((messages) => {
        res.setHeader('Cache-Control', 'no-store');
        res.json({
          messages: messages.map((m) => ({
            kind: m.kind,
            subject: m.subject,
            text: m.text,
            sentAt: m.sentAt.toISOString(),
          })),
        });
      })
      .catch(next);
  });

  router.use(
    '/assets',
    express.static(join(settings.dir, 'assets'), {
      immutable: true,
      maxAge: '1y',
      index: false,
      redirect: false,
    }),
    (_req: Request, _res: Response, next: NextFunction) => next(new AppError('NOT_FOUND', { message: 'No such file' })),
  );
  router.use(
    express.static(settings.dir, {
      index: false,
      redirect: false,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );

  // The app's routes live in the browser: whatever is not a file is the app.
  router.get('/{*route}', (req, res, next) => {
    res.sendFile(
      'index.html',
      { root: settings.dir, cacheControl: false, headers: { 'Cache-Control': 'no-cache' } },
      (err?: Error & { status?: number }) => {
        if (!err || res.headersSent) return;
        if (err.status !== 404) return next(err);
        req.log.warn({ dir: settings.dir }, 'the dashboard is not built');
        res.status(503).setHeader('Cache-Control', 'no-store').type('html').send(NOT_BUILT_PAGE);
      },
    );
  });

  return router;
}

/** The origin the browser is on, as this request names it. */
function requestOrigin(req: Request): string | undefined {
  const host = req.get('host');
  const url = `${req.protocol}://${host ?? ''}`;
  return host && URL.canParse(url) ? new URL(url).origin : undefined;
}

/**
 * The allowed redirect URI that comes back to this dashboard: its callback path on the origin the browser is on (or
 * PUBLIC_URL's); null when none is configured. An entry for another origin would land where this page's sign-in
 * state is not, so it is not offered.
 */
export function oauthRedirectUriFor(
  oauth: OAuthSettings,
  origin: string | undefined,
  publicUrl: string | undefined,
): string | null {
  const callbacks = oauth.dashboard.redirectUris.filter(
    (uri) => new URL(uri).pathname === DASHBOARD_OAUTH_CALLBACK_PATH,
  );
  const origins = [origin, publicUrl && new URL(publicUrl).origin].filter((o): o is string => Boolean(o));
  for (const o of origins) {
    const match = callbacks.find((uri) => new URL(uri).origin === o);
    if (match) return match;
  }
  return null;
}
