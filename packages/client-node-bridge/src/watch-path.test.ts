import { describe, expect, it } from 'vitest';
import { parseWatchPath } from './watch-path.ts';

describe('parseWatchPath', () => {
  it('reads the collections client-node informers watch', () => {
    expect(parseWatchPath('/api/v1/namespaces/default/pods')).toEqual({
      group: '',
      version: 'v1',
      resource: 'pods',
      namespace: 'default',
    });
    expect(parseWatchPath('/api/v1/pods')).toEqual({ group: '', version: 'v1', resource: 'pods' });
    expect(parseWatchPath('/apis/apps/v1/namespaces/x/deployments')).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      namespace: 'x',
    });
    expect(parseWatchPath('/apis/example.com/v1alpha1/widgets/')).toEqual({
      group: 'example.com',
      version: 'v1alpha1',
      resource: 'widgets',
    });
    expect(parseWatchPath('/api/v1/namespaces')).toEqual({
      group: '',
      version: 'v1',
      resource: 'namespaces',
    });
  });

  it('refuses anything that is not a collection, with a TypeError quoting the path', () => {
    for (const path of [
      '',
      '/',
      '/api',
      '/api/v1',
      '/api/v1/namespaces/default/pods/web',
      '/api/v1/pods?watch=true',
      '/apis/apps',
      '/healthz',
      '/api/v1/namespaces/%2F/pods',
      '/api/v1/namespaces/%E0%A4%A/pods',
    ]) {
      expect(() => parseWatchPath(path), path).toThrow(TypeError);
    }
    expect(() => parseWatchPath('/api/v1/pods/x')).toThrow(/got "\/api\/v1\/pods\/x"/);
    expect(() => parseWatchPath(42 as unknown as string)).toThrow(/path must be a string/);
  });
});
