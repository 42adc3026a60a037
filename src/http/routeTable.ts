// Request routing from the generated operation table, compiled once at start-up. (openapi-backend's own router
// flattens every operation and builds a regex per template on every request: 0.2-0.5 ms per request with 90
// operations, measured in bench/results/2026-11-21-http-foundation.md.) A request tries only the templates of its
// shape (how many segments, and the last one), not all of them: trying all 111 templates' regexes in turn took ~5 us
// per request, as much CPU as the rest of operationRouter.ts's own code (2026-11-27 profile); now ~0.4 us.
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

/**
 * The shape of a path: its number of segments and its last segment, or '*' for a template whose last segment holds a
 * parameter. A template's regex matches a path (less one trailing slash) only of the same shape, as a parameter
 * matches no '/'.
 */
function shapeOf(path: string, lastSegment = path.slice(path.lastIndexOf('/') + 1)): string {
  let segments = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) segments++;
  return `${segments} ${lastSegment}`;
}

export function createRouteTable(): (method: string, path: string) => RouteMatch {
  const routes: Route[] = (Object.keys(operations) as OperationId[])
    .map((operationId) => {
      const { method, path } = operations[operationId];
      if (path.endsWith('/')) throw new Error(`${operationId}: a path template ending in '/' (${path})`);
      return {
        operationId,
        method: method.toUpperCase(),
        ...compile(path),
        specificity: path.replace(/\{[^}]+\}/g, '').length,
      };
    })
    .sort((a, b) => b.specificity - a.specificity);

  // Per shape, the templates that may match it, in the order above: those ending with that literal segment, and
  // those ending with a parameter (a shape with no literal entry tries only the latter).
  const byShape = new Map<string, Route[]>();
  const templateShape = (route: Route) => {
    const template = operations[route.operationId].path;
    const last = template.slice(template.lastIndexOf('/') + 1);
    return shapeOf(template, last.includes('{') ? '*' : last);
  };
  for (const route of routes) {
    const shape = templateShape(route);
    if (!byShape.has(shape)) byShape.set(shape, []);
  }
  for (const [shape, list] of byShape) {
    const wildcard = shape.slice(0, shape.indexOf(' ')) + ' *';
    for (const route of routes) {
      const own = templateShape(route);
      if (own === shape || own === wildcard) list.push(route);
    }
  }

  return (method, path) => {
    const upper = method.toUpperCase();
    const allow = new Set<string>();
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const shape = shapeOf(trimmed);
    const candidates = byShape.get(shape) ?? byShape.get(shape.slice(0, shape.indexOf(' ')) + ' *') ?? [];
    for (const route of candidates) {
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
