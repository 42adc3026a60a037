// JSON Schema (2020-12, as used by the contract) -> fast-check arbitraries of valid values, plus mutations that
// make a valid value invalid. Written here because no maintained npm package generates both from OpenAPI 3.1
// (toolchain notes: nothing schemathesis-like exists on npm); every generated value is re-checked with Ajv, so a
// gap in this generator shows up as a filtered or skipped case, never as a false pass.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { StrKey } from '@stellar/stellar-sdk';
import { resolve, type Json } from './spec';

const MAX_DEPTH = 6;

function stringArb(schema: Json): fc.Arbitrary<string> {
  if (schema.pattern) {
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? Infinity;
    // A G-address has a StrKey checksum no pattern can express: give each generated one a valid checksum (same length,
    // so the pattern still holds), or every valid request naming an account would be refused as it should be.
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .map((s) =>
        s
          .replace(/G[A-Z2-7]{55}/g, (g) => StrKey.encodeEd25519PublicKey(createHash('sha256').update(g).digest()))
          // A contract C-address likewise (the whole string: the ContractAddress pattern).
          .replace(/^C[A-Z2-7]{55}$/, (c) => StrKey.encodeContract(createHash('sha256').update(c).digest())),
      )
      .filter((s) => s.length >= min && s.length <= max);
  }
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uri':
      return fc
        .webUrl({ withQueryParameters: false, withFragments: false })
        .filter((u) => u.length <= (schema.maxLength ?? 2048));
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254));
    default:
      return fc
        .string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) })
        .filter((s) => s.length >= (schema.minLength ?? 0));
  }
}

export function valueArb(input: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input).node;
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...(alternatives as Json[]).map((s) => valueArb(s, depth + 1)));
  if (schema.allOf)
    return valueArb(Object.assign({}, ...(schema.allOf as Json[]).map((s) => resolve(s).node)), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, Math.max(min, 3));
      if (depth > MAX_DEPTH) return fc.constant([]);
      return fc.array(valueArb(schema.items ?? {}, depth + 1), { minLength: min, maxLength: max });
    }
    case 'object':
    default: {
      if (!schema.properties && type !== 'object') return fc.constant(null);
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, sub] of Object.entries<Json>(schema.properties ?? {})) props[name] = valueArb(sub, depth + 1);
      const required = (schema.required ?? []) as string[];
      const optional = depth > MAX_DEPTH ? [] : Object.keys(props).filter((k) => !required.includes(k));
      const chosen = Object.fromEntries(
        Object.entries(props).filter(([k]) => required.includes(k) || optional.includes(k)),
      );
      return fc.record(chosen, { requiredKeys: required.filter((k) => k in chosen) });
    }
  }
}

/** Ways to break a valid object body; each returns undefined when it does not apply. */
export function objectMutations(input: Json): ((value: Record<string, unknown>) => unknown)[] {
  const schema = resolve(input).node;
  const mutations: ((value: Record<string, unknown>) => unknown)[] = [];
  const required: string[] = schema.required ?? [];
  for (const name of required) {
    mutations.push((v) => {
      const copy = { ...v };
      delete copy[name];
      return copy;
    });
  }
  if (schema.additionalProperties === false) mutations.push((v) => ({ ...v, unexpectedField: 'x' }));
  for (const [name, sub] of Object.entries<Json>(schema.properties ?? {})) {
    const prop = resolve(sub).node;
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (type === 'string' || prop.pattern || prop.enum || prop.const !== undefined)
      mutations.push((v) => ({ ...v, [name]: { not: 'a string' } }));
    else if (type === 'integer' || type === 'number') mutations.push((v) => ({ ...v, [name]: 'not-a-number' }));
    else if (type === 'boolean') mutations.push((v) => ({ ...v, [name]: 'yes' }));
    else if (type === 'array') mutations.push((v) => ({ ...v, [name]: 'not-an-array' }));
  }
  mutations.push(() => ['not', 'an', 'object']);
  return mutations;
}

/** A query/path parameter value that breaks the parameter's schema, or undefined when none is known. */
export function invalidParamValue(input: Json): string | undefined {
  const schema = resolve(input).node;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum) return 'not-one-of-the-values';
  if (type === 'integer' || type === 'number') return 'not-a-number';
  if (type === 'boolean') return 'maybe';
  if (schema.pattern) {
    const candidate = 'invalid value!';
    return new RegExp(schema.pattern).test(candidate) ? undefined : candidate;
  }
  if (schema.format === 'date-time') return 'yesterday';
  if (schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
  return undefined;
}
