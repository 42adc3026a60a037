// The sandbox providers' pages: where a developer plays the part of the third party. Each is served only while its
// sandbox is offered; the id in the path is the capability, as a hosted provider's link is. No script: one form
// posts back here, and the page says what happened.
//   GET  /sandbox/kyc/:sessionId     a KYC session (src/domain/kyc/sandbox.ts): app, level, status, expiry; Approve and
//                                    Reject while pending (KYC_SANDBOX)
//   POST /sandbox/kyc/:sessionId     decision=approved|rejected
//   GET  /sandbox/ramps/:rampTxId    a sandbox on-ramp (src/domain/ramps/sandbox.ts): what the user pays and receives;
//                                    "Confirm the deposit" while it awaits it (RAMPS_SANDBOX)
//   POST /sandbox/ramps/:rampTxId    the deposit confirmed: the fiat ledger records it, the asset is delivered
// The router is mounted at /sandbox (app.ts): its paths are relative to it, and an API request never enters it.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../domain/deps';
import { appErrorOf } from '../domain/errors';
import { decideSandboxSession, findSandboxSession, type SandboxSession } from '../domain/kyc/sandbox';
import {
  confirmSandboxDeposit,
  findSandboxDeposit,
  type SandboxDeliveryDeps,
  type SandboxDeposit,
} from '../domain/ramps/sandbox';
import { recordRampStatus } from '../domain/ramps/transactions';
import { sandboxContentSecurityPolicy } from './securityHeaders';

const SESSION_ID = /^kys_[0-9A-Za-z]{1,60}$/;
const RAMP_TX_ID = /^rmt_[0-9A-Za-z]{1,60}$/;

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

function notFound(res: Response, what = 'verification'): void {
  res
    .status(404)
    .type('html')
    .send(page('Not found', `<h1>No such sandbox ${what}</h1>`));
}

function depositPage(deposit: SandboxDeposit, note?: string): string {
  const [code] = deposit.asset.split(':');
  const facts = `<dl>
  <dt>App</dt><dd>${escapeHtml(deposit.appName)}</dd>
  <dt>The user pays</dt><dd>${escapeHtml(deposit.fiatAmount)} ${escapeHtml(deposit.fiatCurrency)}</dd>
  <dt>Reference</dt><dd>${escapeHtml(deposit.reference)}</dd>
  <dt>The wallet receives</dt><dd>${escapeHtml(deposit.cryptoAmount)} ${escapeHtml(code ?? '')}</dd>
  <dt>Wallet</dt><dd><code>${escapeHtml(deposit.walletAddress)}</code></dd>
  <dt>Status</dt><dd class="status">${escapeHtml(deposit.status)}</dd>
  ${deposit.stellarTxHash ? `<dt>Delivery</dt><dd><code>${escapeHtml(deposit.stellarTxHash)}</code></dd>` : ''}
</dl>`;
  const intro = `<h1>Sandbox on-ramp deposit</h1>
<p class="note">This is the development ramp of this service: no money moves. Confirming plays the bank telling the
provider that the user's payment arrived; the asset is then sent to the user's wallet on the network.</p>`;
  const action =
    deposit.status === 'awaiting_deposit' || (deposit.status === 'processing' && !deposit.stellarTxHash)
      ? `<form method="post"><button class="approve" type="submit" name="confirm" value="deposit">Confirm the deposit</button></form>`
      : '';
  return page('Sandbox on-ramp deposit', `${intro}${facts}${note ? `<p>${escapeHtml(note)}</p>` : ''}${action}`);
}

export function sandboxRouter(deps: Pick<Deps, 'db' | 'clock' | 'kyc' | 'ramps'> & SandboxDeliveryDeps): Router {
  const router = Router();
  if (!deps.kyc?.sandbox && !deps.ramps?.sandbox) return router;
  router.use(sandboxContentSecurityPolicy, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  if (deps.ramps?.sandbox) rampPages(router, deps);
  if (!deps.kyc?.sandbox) return router;
  router.get('/kyc/:sessionId', async (req: Request, res: Response, next: NextFunction) => {
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
    '/kyc/:sessionId',
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

function rampPages(router: Router, deps: SandboxDeliveryDeps): void {
  router.get('/ramps/:rampTxId', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const rampTxId = String(req.params.rampTxId);
      const deposit = RAMP_TX_ID.test(rampTxId) ? await findSandboxDeposit(deps, rampTxId) : undefined;
      if (!deposit) return notFound(res, 'on-ramp');
      res.type('html').send(depositPage(deposit));
    } catch (err) {
      next(err);
    }
  });
  router.post(
    '/ramps/:rampTxId',
    express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 4 }),
    async (req: Request, res: Response, next: NextFunction) => {
      const rampTxId = String(req.params.rampTxId);
      try {
        if (!RAMP_TX_ID.test(rampTxId) || !(await findSandboxDeposit(deps, rampTxId))) return notFound(res, 'on-ramp');
        const deposit = await confirmSandboxDeposit(deps, rampTxId, (status, hash) =>
          recordRampStatus(deps, rampTxId, status, hash),
        );
        res
          .type('html')
          .send(
            depositPage(deposit, deposit.status === 'completed' ? 'Delivered. You can return to the app.' : undefined),
          );
      } catch (err) {
        // The deposit is recorded; the delivery can be retried from the same page (it never pays twice).
        deps.log.warn({ rampTxId, err: (err as Error).message }, 'sandbox on-ramp delivery failed');
        const deposit = await findSandboxDeposit(deps, rampTxId).catch(() => undefined);
        if (!deposit) return next(err);
        res
          .status(503)
          .type('html')
          .send(depositPage(deposit, 'The deposit is recorded, but the delivery did not go through yet: try again.'));
      }
    },
  );
}
