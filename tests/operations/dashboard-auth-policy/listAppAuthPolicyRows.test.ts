// listAppAuthPolicyRows (GET /api/v1/apps/{appId}/auth-policy/rows): any member reads the app's rows with its
// network; an outsider gets 404. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRow, developer, listRows, outsider, owner, teamApp, useService } from './setup';

describe('listAppAuthPolicyRows', () => {
  useService();

  test('200 for members (oldest first, the network); 404 APPLICATION_NOT_FOUND for an outsider', async () => {
    const appId = await teamApp();
    const empty = await listRows(developer, appId);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.code, 'AUTH_POLICY_ROWS_LISTED');
    assert.deepEqual(empty.body.content, { rows: [], network: 'testnet' });
    const a = (await createRow(owner, appId, { contract: '*', functions: ['*'], label: 'first' })).body.content;
    const b = (await createRow(developer, appId, { contract: '*', functions: ['*'], label: 'second' })).body.content;
    const listed = await listRows(owner, appId);
    assert.deepEqual(listed.body.content.rows, [a, b]);
    const foreign = await listRows(outsider, appId);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.code, 'APPLICATION_NOT_FOUND');
  });
});
