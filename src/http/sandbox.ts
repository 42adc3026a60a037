// The sandbox KYC provider's page (src/domain/kyc/sandbox.ts): where a developer decides a sandbox verification. Served
// only while the sandbox is offered (KYC_SANDBOX); the session id in the path is the capability, as a hosted
// provider's link is. No script: one form with two buttons posts back here, and the page says what was decided.
//   GET  /sandbox/kyc/:sessionId   the session: app, level, status, expiry; Approve and Reject while pending
//   POST /sandbox/kyc/:sessionId   decision=approved|rejected
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../domain/deps';
import { appErrorOf } from '../domain/errors';
import { decideSandboxSession, findSandboxSession, type SandboxSession } from '../domain/kyc/sandbox';
import { sandboxContentSecurityPolicy } from './securityHeaders';

const SESSION_ID = /^kys_[0-9A-Za-z]{1,60}$/;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1a1b1e; }
  h1 { font-size: 1.4rem; }
  .note { color: #495057; font-size: 0.9rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.4rem 1rem; }
  dt { font-weight: 600; }
  form { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
  button { font-size: 1rem; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #1c7ed6; cursor: pointer; }
  .approve { background: #1971c2; color: #fff; }
  .reject { background: #fff; color: #c92a2a; border-color: #c92a2a; }
  .status { font-weight: 700; }
</style>
</head>
<body>
${body}
</body>
</html>`;
}

function sessionPage(session: SandboxSession, decided?: string): string {
  const facts = `<dl>
  <dt>App</dt><dd>${escapeHtml(session.appName)}</dd>
  <dt>Level</dt><dd>${escapeHtml(session.level)}</dd>
  <dt>Status</dt><dd class="status">${session.expired && session.status === 'pending' ? 'expired' : session.status}</dd>
  <dt>Open until</dt><dd>${session.expiresAt.toISOString()}</dd>
</dl>`;
  const intro = `<h1>Sandbox identity verification</h1>
<p class="note">This is the development KYC provider of this service: no identity is checked. Decide what the
verification should answer, then return to the app, which polls its status.</p>`;
  if (decided)
    return page(
      'Verification decided',
      `${intro}${facts}<p>The verification is ${escapeHtml(decided)}. You can return to the app.</p>`,
    );
  if (session.status !== 'pending')
    return page('Verification decided', `${intro}${facts}<p>This verification was already decided.</p>`);
  if (session.expired)
    return page(
      'Session expired',
      `${intro}${facts}<p>This session expired: start a new verification from the app.</p>`,
    );
  return page(
    'Sandbox identity verification',
    `${intro}${facts}
<form method="post">
  <button class="approve" type="submit" name="decision" value="approved">Approve</button>
  <button class="reject" type="submit" name="decision" value="rejected">Reject</button>
</form>`,
  );
}

function notFound(res: Response): void {
  res.status(404).type('html').send(page('Not found', '<h1>No such sandbox verification</h1>'));
}

export function sandboxRouter(deps: Pick<Deps, 'db' | 'clock' | 'kyc'>): Router {
  const router = Router();
  if (!deps.kyc?.sandbox) return router;
  router.use('/sandbox', sandboxContentSecurityPolicy, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.get('/sandbox/kyc/:sessionId', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const sessionId = String(req.params.sessionId);
      const session = SESSION_ID.test(sessionId) ? await findSandboxSession(deps, sessionId) : undefined;
      if (!session) return notFound(res);
      res.type('html').send(sessionPage(session));
    } catch (err) {
      next(err);
    }
  });
  router.post(
    '/sandbox/kyc/:sessionId',
    express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 4 }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const sessionId = String(req.params.sessionId);
        const decision = (req.body as Record<string, unknown> | undefined)?.decision;
        if (!SESSION_ID.test(sessionId)) return notFound(res);
        if (decision !== 'approved' && decision !== 'rejected') {
          res.status(400).type('html').send(page('Bad request', '<h1>Choose Approve or Reject</h1>'));
          return;
        }
        const session = await decideSandboxSession(deps, sessionId, decision);
        res.type('html').send(sessionPage(session, session.status));
      } catch (err) {
        const known = appErrorOf(err);
        if (known?.code === 'SDK_KYC_VERIFICATION_NOT_FOUND') return notFound(res);
        if (known?.code === 'SDK_KYC_SESSION_EXPIRED') {
          res
            .status(410)
            .type('html')
            .send(
              page('Session expired', '<h1>This session expired</h1><p>Start a new verification from the app.</p>'),
            );
          return;
        }
        next(err);
      }
    },
  );
  return router;
}
