/**
 * Lists the routes an Express 5 app serves by walking its router stack
 * (`app.router.stack`): route layers carry `route.path` and `route.methods`;
 * routers mounted with `app.use([path,] router)` carry their own `stack`.
 * And the operations the OpenAPI document lists, to compare them with.
 */
import { openApiDocument, type HttpMethod } from '../../src/http/openapi';

export interface RouteKey {
  readonly method: string;
  /** In OpenAPI form: `/api/contexts/{id}`. */
  readonly path: string;
}

interface Layer {
  readonly rawPath?: unknown;
  readonly route?: { readonly path: unknown; readonly methods: { readonly [method: string]: boolean } };
  readonly handle?: { readonly stack?: readonly Layer[] };
}

const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/** `METHOD /path/{param}` of every operation the OpenAPI document lists. */
export function documentedRoutes(): string[] {
  return Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`));
}

/** Express `:id` to OpenAPI `{id}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function listRoutes(app: { readonly router: unknown }): RouteKey[] {
  const found: RouteKey[] = [];
  walk((app.router as { stack: readonly Layer[] }).stack, '', found);
  return found;
}

function walk(stack: readonly Layer[], prefix: string, found: RouteKey[]): void {
  for (const layer of stack) {
    if (layer.route !== undefined) {
      const path = layer.route.path;
      if (typeof path !== 'string') throw new Error(`route with a non-string path: ${String(path)}`);
      for (const [method, on] of Object.entries(layer.route.methods)) {
        // HEAD is answered by GET handlers; `_all` (router.all) would need every method documented.
        if (on && method !== 'head') found.push({ method, path: toOpenApiPath(prefix + path) });
      }
    } else if (layer.handle?.stack !== undefined) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      walk(layer.handle.stack, prefix + mount, found);
    }
  }
}
