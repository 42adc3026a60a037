// HTTP hardening from one place (issue #23, finding 7), with helmet:
//   - every answer: nosniff, no framing (frame-ancestors 'none' and X-Frame-Options DENY), no referrer, and a CSP that
//     allows nothing (default-src 'none'): API answers are JSON, never a page;
//   - /docs: the CSP the Redoc page needs and no more (its scripts from this origin only, styles inline as Redoc
//     injects them, the contract fetched from this origin, search in a blob: worker);
//   - /dashboard: the operators' app likewise (its scripts from this origin only, styles inline as Mantine injects
//     them, images from this origin or data:, API calls to this origin);
//   - API answers (/v1, /api): Cache-Control: no-store, since many carry tokens, keys or secrets (sign-in, refresh,
//     createApiKey, rotateApiKey) and none is worth caching; one rule for all, so a new operation cannot forget it;
//   - HSTS only when the service is reached over https (PUBLIC_URL): on plain http it means nothing.
// helmet decides the headers; they are the same for every answer, so they are taken from it once, at start-up, and
// set by one middleware. helmet itself runs a chain of a dozen middlewares per answer: that chain and its header
// calls were 12% of a keyed request's time (bench/results/2026-12-02-http-foundation.md).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

const NONE = ["'none'"];

/**
 * The headers `middleware` sets on an answer, found by running it once against a stand-in answer. Only for a
 * middleware whose headers depend on nothing of the request (helmet with static options): it must call next at once.
 */
export function staticHeadersOf(middleware: RequestHandler): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>();
  const answer = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  let passed = false;
  void middleware({} as Request, answer as unknown as Response, () => (passed = true));
  if (!passed) throw new Error('staticHeadersOf: the middleware did not pass the request on at once');
  return [...headers];
}

export function securityHeaders(opts: { https: boolean }): RequestHandler[] {
  const headers = staticHeadersOf(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: NONE, frameAncestors: NONE, baseUri: NONE, formAction: NONE },
      },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: opts.https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      // The SDK API is called cross-origin from the apps' pages (CORS decides who may read it).
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  return [
    (req: Request, res: Response, next: NextFunction) => {
      for (const [name, value] of headers) res.setHeader(name, value);
      if (req.path.startsWith('/v1/') || req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}

/** The Redoc page's CSP (replaces the default one on /docs). */
export const docsContentSecurityPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: NONE,
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    workerSrc: ["'self'", 'blob:'],
    frameAncestors: NONE,
    baseUri: NONE,
    formAction: NONE,
  },
});

/** The dashboard's CSP (replaces the default one under /dashboard; see src/http/dashboard.ts). */
export const dashboardContentSecurityPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: NONE,
    scriptSrc: ["'self'"],
    // Mantine injects <style> elements and style attributes at run time.
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    manifestSrc: ["'self'"],
    frameAncestors: NONE,
    baseUri: NONE,
    formAction: NONE,
  },
});

/**
 * The KYC sandbox page's CSP: a static page whose one form posts back to itself; styles from its own <style> element
 * only (by hash would tie the CSP to the markup; 'unsafe-inline' for styles alone, no script at all).
 */
export const sandboxContentSecurityPolicy: RequestHandler = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: NONE,
    styleSrc: ["'unsafe-inline'"],
    frameAncestors: NONE,
    baseUri: NONE,
    formAction: ["'self'"],
  },
});
