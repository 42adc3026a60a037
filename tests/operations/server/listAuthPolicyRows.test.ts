// listAuthPolicyRows (GET /v1/auth-policy/rows): the key's app's rows, oldest first, with the app's network; another
// app's rows are not seen. Set-up in authPolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { installContract } from '../../support/sorobanAuth';
import { createRow, listRows, svc, useService } from './authPolicy.setup';

describe('listAuthPolicyRows', () => {
  useService();

  test('200: empty, then the rows oldest first, per app', async () => {
    const app = await seedCredentials(svc.deps.db);
    const empty = await listRows(app.secretKey);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.code, 'SERVER_AUTH_POLICY_ROWS_LISTED');
    assert.deepEqual(empty.body.content, { rows: [], network: 'testnet' });

    const contract = installContract(svc, ['transfer', 'balance']);
    const first = await createRow({ contract, functions: ['transfer'] }, app.secretKey);
    const second = await createRow({ contract: '*', functions: ['*'], label: 'Anything' }, app.secretKey);
    const listed = await listRows(app.secretKey);
    assert.deepEqual(
      listed.body.content.rows.map((r: any) => r.rowId),
      [first.body.content.rowId, second.body.content.rowId],
    );
    assert.deepEqual(listed.body.content.rows[0], first.body.content);

    const other = await seedCredentials(svc.deps.db);
    assert.deepEqual((await listRows(other.secretKey)).body.content.rows, []);
  });
});
