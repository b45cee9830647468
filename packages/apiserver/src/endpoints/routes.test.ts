import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { requestInfo } from '../request/request-info.ts';
import { Registry } from '../resources/served-resources.ts';
import { routeResource, unservedApiPath } from './routes.ts';

const registry = new Registry();
const configMaps = registry.lookup('', 'v1', 'configmaps')!;
// A custom resource with the status subresource alone.
registry.add({
  ...configMaps,
  group: 'example.com',
  resource: 'gizmos',
  kind: 'Gizmo',
  builtin: false,
  subresources: ['status'],
});

/** The handler verb, namespace and name a request routes to, or the status routing refuses it with. */
function route(method: string, path: string): string {
  const info = requestInfo(method, new URL(path, 'https://127.0.0.1'));
  try {
    const routed = routeResource(info, method, registry);
    return [
      routed.verb,
      routed.namespace ?? '-',
      routed.name ?? '-',
      routed.subresource ?? '-',
    ].join(' ');
  } catch (error) {
    if (error instanceof StatusError) {
      const message = error.status.message ?? '';
      return message.endsWith('not found') ? `${error.code} ${message}` : String(error.code);
    }
    throw error;
  }
}

describe('routeResource (the routes kube installs per resource)', () => {
  const rows: Array<[string, string, string]> = [
    ['GET', '/api/v1/namespaces/ns/configmaps', 'list ns - -'],
    ['GET', '/api/v1/configmaps', 'list - - -'],
    ['GET', '/api/v1/configmaps?watch=1', 'watch - - -'],
    ['GET', '/api/v1/namespaces/ns/configmaps/a', 'get ns a -'],
    ['GET', '/api/v1/namespaces/ns/configmaps/a?watch=1', 'get ns a -'],
    ['POST', '/api/v1/namespaces/ns/configmaps', 'create ns - -'],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', 'deletecollection ns - -'],
    // A field-selector name authorizes a list of one object; the handler still lists.
    ['GET', '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da', 'list ns - -'],
    ['GET', '/api/v1/watch/namespaces/ns/configmaps/a', 'watch ns a -'],
    ['GET', '/api/v1/watch/configmaps', 'watch - - -'],
    // A namespace is the object of /namespaces/{name}, not a scope.
    ['GET', '/api/v1/namespaces/x', 'get - x -'],
    ['PUT', '/api/v1/namespaces/x/finalize', 'update - x finalize'],
    ['GET', '/api/v1/namespaces/x/status', 'get - x status'],
    ['PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale', 'update ns d scale'],
    ['POST', '/api/v1/namespaces/ns/serviceaccounts/sa/token', 'create ns sa token'],
    // 404: nothing serves the path.
    ['GET', '/api/v1/nothings', '404'],
    ['OPTIONS', '/api/v1/nothings', '404'],
    ['GET', '/api/v1/watch', '404'],
    ['GET', '/api/v1/proxy/namespaces/ns/pods/p', '404'],
    ['GET', '/api/v1/configmaps/a', '404'],
    ['PATCH', '/api/v1/configmaps/a', '404'],
    ['GET', '/api/v1/namespaces/ns/namespaces', '404'],
    ['GET', '/api/v1/namespaces/ns/namespaces/ns', '404'],
    ['GET', '/api/v1/namespaces/ns/configmaps/a/b/c', '404'],
    ['GET', '/api/v1/namespaces/ns/pods/p/nothing', '404'],
    ['GET', '/api/v1/namespaces/x/status/y', '404'],
    ['PUT', '/api/v1/namespaces/x/finalize/y', '404'],
    ['GET', '/apis/apps/v1/namespaces/ns/status', '404'],
    ['GET', '/api/v1//configmaps', '404'],
    ['GET', '/api/v1/watch/namespaces/ns/configmaps/a/status', '404'],
    // A custom resource's subresource its CRD does not enable is the object not found (apiextensions).
    ['GET', '/apis/example.com/v1/namespaces/ns/gizmos/a/status', 'get ns a status'],
    [
      'GET',
      '/apis/example.com/v1/namespaces/ns/gizmos/a/scale',
      '404 gizmos.example.com "a" not found',
    ],
    [
      'GET',
      '/apis/example.com/v1/namespaces/ns/gizmos/a/b/c',
      '404 gizmos.example.com "a" not found',
    ],
    // 405: the path is served, the method is not.
    ['POST', '/api/v1/watch/namespaces/ns/configmaps', '405'],
    ['HEAD', '/api/v1/watch/namespaces/ns/configmaps', '405'],
    ['HEAD', '/api/v1/namespaces/ns/configmaps', '405'],
    ['HEAD', '/api/v1/namespaces/ns/configmaps/a', '405'],
    ['HEAD', '/api/v1/namespaces/ns/configmaps?watch=1', '405'],
    ['DELETE', '/api/v1/watch/namespaces/ns/configmaps', '405'],
    ['OPTIONS', '/api/v1/namespaces/ns/configmaps', '405'],
    ['PUT', '/api/v1/namespaces/ns/configmaps', '405'],
    ['PATCH', '/api/v1/namespaces/ns/configmaps', '405'],
    ['POST', '/api/v1/namespaces/ns/configmaps/a', '405'],
    ['POST', '/api/v1/configmaps', '405'],
    ['DELETE', '/api/v1/configmaps', '405'],
    ['GET', '/api/v1/namespaces/x/finalize', '405'],
    ['GET', '/api/v1/namespaces/ns/pods/p/log', 'get ns p log'],
    ['POST', '/api/v1/namespaces/ns/pods/p/log', '405'],
    ['GET', '/api/v1/namespaces/ns/serviceaccounts/sa/token', '405'],
    ['DELETE', '/api/v1/namespaces/ns/pods/p/status', '405'],
  ];

  it.each(rows)('routes %s %s', (method, path, expected) => {
    expect(route(method, path)).toBe(expected);
  });
});

describe("unservedApiPath (what falls through kube-apiserver's chain to its plain-text 404)", () => {
  it.each([
    ['no-such.example.com', undefined, undefined, true],
    ['no-such.example.com', 'v1', 'things', true],
    ['example.com', undefined, undefined, false],
    ['example.com', 'v1', undefined, false],
    ['example.com', 'v9', undefined, true],
    ['example.com', 'v1', 'gizmos', false],
    ['example.com', 'v1', 'nothings', true],
    // Built-in groups answer go-restful's 404 Status instead.
    ['apps', 'v9', undefined, false],
    ['apps', 'v1', 'nothings', false],
  ])('%s %s %s: %s', (group, version, resource, expected) => {
    expect(unservedApiPath(registry, group, version, resource)).toBe(expected);
  });
});
