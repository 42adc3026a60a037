import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDispatcher, RpcError, RpcCode } from './jsonRpc';

const errors: unknown[] = [];
const d = createDispatcher(
  {
    echo: (params) => params,
    fail: () => {
      throw new RpcError(RpcCode.InvalidParams, 'bad');
    },
    boom: () => {
      throw new Error('kaput');
    },
  },
  (_m, err) => errors.push(err),
);

describe('JSON-RPC 2.0 dispatcher', () => {
  test('a result, with params null read as {}', async () => {
    assert.deepEqual(await d.handleBody('{"jsonrpc":"2.0","id":1,"method":"echo","params":null}', {}), {
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    assert.deepEqual(await d.handleBody('{"jsonrpc":"2.0","id":"a","method":"echo","params":{"x":1}}', {}), {
      jsonrpc: '2.0',
      id: 'a',
      result: { x: 1 },
    });
  });

  test('invalid JSON -32700, bad envelope -32600, unknown method -32601, array params -32602', async () => {
    const code = async (body: string) => ((await d.handleBody(body, {})) as { error: { code: number } }).error.code;
    assert.equal(await code('{'), -32700);
    assert.equal(await code('{"id":1,"method":"echo"}'), -32600);
    assert.equal(await code('[]'), -32600);
    assert.equal(await code('{"jsonrpc":"2.0","id":1,"method":"nope"}'), -32601);
    assert.equal(await code('{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}'), -32602);
  });

  test('RpcError keeps its code; anything else is -32603 and reported', async () => {
    const r1 = (await d.handleBody('{"jsonrpc":"2.0","id":1,"method":"fail"}', {})) as {
      error: { code: number; message: string };
    };
    assert.deepEqual(r1.error, { code: -32602, message: 'bad' });
    const r2 = (await d.handleBody('{"jsonrpc":"2.0","id":2,"method":"boom"}', {})) as { error: { code: number } };
    assert.equal(r2.error.code, -32603);
    assert.equal(errors.length, 1);
  });

  test('batches answer in order; notifications get no answer', async () => {
    const r = await d.handleBody(
      '[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":3,"method":"nope"}]',
      {},
    );
    assert.ok(Array.isArray(r));
    assert.deepEqual(
      r.map((x) => x.id),
      [1, 3],
    );
    assert.equal(await d.handleBody('{"jsonrpc":"2.0","method":"echo"}', {}), undefined);
  });
});
