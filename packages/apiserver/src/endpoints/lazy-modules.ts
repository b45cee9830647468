// Modules the server loads on first use rather than at import (they are most of its start time): the CEL
// engine, wanted once a CustomResourceDefinition carries x-kubernetes-validations, and the YAML parser,
// wanted by YAML bodies and server-side apply. The request chain awaits what a request may need before the
// synchronous handlers run.
import type { IncomingHttpHeaders } from 'node:http';
import { loadYaml } from '../patch/yaml-module.ts';
import { celEngineLoaded, loadCelEngine } from '../schema/cel/rules.ts';

const yamlTypes = new Set(['application/yaml', 'application/apply-patch+yaml']);
let yamlLoaded = false;

/**
 * What `request` may need loaded before it is handled, or undefined when everything it may need is loaded
 * (the common case: no promise, no extra turn of the event loop).
 */
export function modulesFor(
  headers: IncomingHttpHeaders,
  url: { readonly pathname: string },
  body: Buffer,
): Promise<unknown> | undefined {
  if (body.length === 0) return undefined;
  const contentType = String(headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const loads: Promise<void>[] = [];
  if (!yamlLoaded && yamlTypes.has(contentType)) {
    loads.push(
      loadYaml().then(() => {
        yamlLoaded = true;
      }),
    );
  }
  if (
    !celEngineLoaded() &&
    (body.includes('x-kubernetes-validations') ||
      (contentType === 'application/vnd.kubernetes.protobuf' &&
        url.pathname.includes('/customresourcedefinitions')))
  ) {
    loads.push(loadCelEngine());
  }
  if (loads.length === 0) return undefined;
  return Promise.all(loads);
}
