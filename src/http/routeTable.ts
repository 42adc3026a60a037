// Request routing from the generated operation table, compiled once at start-up. (openapi-backend's own router
// flattens every operation and builds a regex per template on every request: 0.2-0.5 ms per request with 90
// operations, measured in bench/results/2026-11-21-http-foundation.md.)
import { operations, type OperationId } from '../../generated/server/catalogue.gen';

export type RouteMatch =
  | { kind: 'operation'; operationId: OperationId; params: Record<string, string> }
  | { kind: 'notFound' }
  | { kind: 'methodNotAllowed'; allow: string[] };

interface Route {
  operationId: OperationId;
  method: string;
  regex: RegExp;
  paramNames: string[];
  /** Length of the literal part: a more specific template wins (/v1/tx/history over /v1/tx/{hash}). */
  specificity: number;
}

function compile(template: string): { regex: RegExp; paramNames: string[] } {
  const paramNames: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (param) {
        paramNames.push(param[1]!);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { regex: new RegExp(`^${source}/?$`), paramNames };
}

export function createRouteTable(): (method: string, path: string) => RouteMatch {
  const routes: Route[] = (Object.keys(operations) as OperationId[])
    .map((operationId) => {
      const { method, path } = operations[operationId];
      return {
        operationId,
        method: method.toUpperCase(),
        ...compile(path),
        specificity: path.replace(/\{[^}]+\}/g, '').length,
      };
    })
    .sort((a, b) => b.specificity - a.specificity);

  return (method, path) => {
    const upper = method.toUpperCase();
    const allow = new Set<string>();
    for (const route of routes) {
      const match = route.regex.exec(path);
      if (!match) continue;
      if (route.method === upper || (upper === 'HEAD' && route.method === 'GET')) {
        let params: Record<string, string>;
        try {
          params = Object.fromEntries(route.paramNames.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
        } catch {
          continue; // a malformed %-escape cannot be this route's parameter
        }
        return { kind: 'operation', operationId: route.operationId, params };
      }
      allow.add(route.method);
    }
    return allow.size ? { kind: 'methodNotAllowed', allow: [...allow].sort() } : { kind: 'notFound' };
  };
}
