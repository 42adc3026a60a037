// `make mock` serves every operation's examples with Prism; the generated client gets exactly the spec's examples.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '../../generated/client/client';
import * as sdk from '../../generated/client/sdk.gen';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import fc from 'fast-check';
import { sampleCredentials } from '../support/credentials';
import { credentials, requestArb, urlOf } from '../support/requests';
import { startPrism, type Prism } from '../support/prism';
import { operationObject, resolve } from '../support/spec';

describe('Prism mock of the contract', () => {
  let prism: Prism;
  before(async () => {
    prism = await startPrism('mock');
  });
  after(async () => {
    await prism?.stop();
  });

  test('fundWallet through the generated client returns the documented example', async () => {
    const client = createClient({ baseUrl: prism.url, headers: { 'x-service-api-key': sampleCredentials.secretKey } });
    const res = await sdk.fundWallet({
      client,
      body: { publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' },
    });
    const { op } = operationObject('fundWallet');
    assert.equal(res.response?.status, 200);
    assert.deepEqual(res.data, op.responses['200'].content['application/json'].example);
  });

  test('every operation answers its success example (and a documented error example on request)', async () => {
    for (const id of Object.keys(operations) as OperationId[]) {
      const { op } = operationObject(id);
      const { method, successStatus } = operations[id];
      const example = resolve(op.responses[String(successStatus)]).node.content?.['application/json']?.example;
      const [req] = fc.sample(requestArb(id), { numRuns: 1, seed: 1 });
      const url = urlOf(id, req!);
      const body = op.requestBody ? resolve(op.requestBody).node.content?.['application/json']?.example : undefined;
      const res = await fetch(prism.url + url, {
        method: method.toUpperCase(),
        headers: { ...(await credentials(id)), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      assert.equal(res.status, successStatus, `${id}: ${text.slice(0, 300)}`);
      assert.deepEqual(JSON.parse(text), example, id);
    }
  });
});
