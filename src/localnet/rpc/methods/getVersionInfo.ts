import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';

/** Says plainly that this is localnet, not stellar-rpc with a captive stellar-core. */
export function getVersionInfo(ctx: Pick<RpcContext, 'engine' | 'settings'>): MethodHandler {
  return () => ({
    version: `onboard-localnet ${ctx.settings.version}`,
    commitHash: '',
    buildTimestamp: '',
    captiveCoreVersion: 'none: onboard localnet (in-process ledger engine, no stellar-core)',
    protocolVersion: ctx.engine.protocolVersion,
  });
}
