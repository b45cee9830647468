// What the end-to-end suite's handlers were given, recorded per step and normalized so that the record of one
// server compares field by field with the golden one recorded on kube-apiserver 1.20.2: what differs by run
// (uids, timestamps, resourceVersions, the generated namespace, the port of the webhook) or by environment
// (the admin user's name and uid) is replaced by a placeholder, managedFields are left out; everything else is
// kept as received.
import type { KubeObjectLike } from '@lasso/client';
import type { AdmissionRequest } from '../../src/index.ts';

type ConfigMapLike = KubeObjectLike & { data?: Record<string, string> };

/** One recorded handler call: which webhook, and the request's fields (no signal, no warn). */
export interface RecordedReview {
  webhook: string;
  request: Record<string, unknown>;
}

const placeholders: Record<string, string> = {
  uid: '<uid>',
  creationTimestamp: '<timestamp>',
  deletionTimestamp: '<timestamp>',
  resourceVersion: '<resourceVersion>',
  time: '<timestamp>',
};

function normalizeValue(value: unknown, namespace: string, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => normalizeValue(item, namespace));
  if (typeof value === 'object' && value !== null) {
    const result: Record<string, unknown> = {};
    for (const [field, inner] of Object.entries(value)) {
      // managedFields vary by release (1.20 sends none in an update's oldObject, and writes `.` entries
      // newer releases do not): left out of the comparison.
      if (field === 'managedFields') continue;
      result[field] = normalizeValue(inner, namespace, field);
    }
    return result;
  }
  if (typeof value === 'string') {
    if (key in placeholders && value !== '') return placeholders[key];
    return value.replaceAll(namespace, '<namespace>');
  }
  return value;
}

/** The fields of `request` as recorded: JSON-shaped (undefined fields dropped), normalized. */
export function recordRequest(
  webhook: string,
  request: AdmissionRequest<ConfigMapLike>,
  namespace: string,
): RecordedReview {
  const { signal: _signal, warn: _warn, ...fields } = request as unknown as Record<string, unknown>;
  const json = JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
  const userInfo = json.userInfo as Record<string, unknown> | undefined;
  // The admin user differs by environment (envtest's client certificate, a token, a kubeconfig's user):
  // recorded by presence, with the groups kept.
  if (userInfo !== undefined) {
    if (typeof userInfo.username === 'string') userInfo.username = '<user>';
    if (typeof userInfo.uid === 'string') userInfo.uid = '<user-uid>';
  }
  return { webhook, request: normalizeValue(json, namespace) as Record<string, unknown> };
}
