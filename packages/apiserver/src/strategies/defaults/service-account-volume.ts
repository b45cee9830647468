// The token volume the ServiceAccount admission plugin mounts into a Pod (bound tokens, GA in 1.22): a
// projected `kube-api-access-xxxxx` volume (token, cluster CA, namespace) at the well-known path in
// every container that has no mount there, and the account's image pull secrets.
import { isRecord, type Json, stringOf } from '../../apimachinery/objects.ts';

/** Where containers find their service account's credentials. */
const tokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const volumePrefix = 'kube-api-access-';
/** utilrand.String's alphabet (no vowels, no look-alike digits). */
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Mount the service account's token into `spec` unless the Pod or the account opts out
 * (automountServiceAccountToken false), and copy the account's imagePullSecrets to a Pod that names none.
 */
export function mountServiceAccountToken(spec: Json, account: Json): void {
  const pullSecrets = Array.isArray(account.imagePullSecrets) ? account.imagePullSecrets : [];
  if (
    (!Array.isArray(spec.imagePullSecrets) || spec.imagePullSecrets.length === 0) &&
    pullSecrets.length > 0
  ) {
    spec.imagePullSecrets = pullSecrets
      .filter(isRecord)
      .map((secret) => ({ name: stringOf(secret.name) ?? '' }));
  }
  const automount =
    typeof spec.automountServiceAccountToken === 'boolean'
      ? spec.automountServiceAccountToken
      : typeof account.automountServiceAccountToken === 'boolean'
        ? account.automountServiceAccountToken
        : true;
  if (!automount) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
  const existing = volumes.find((volume) => stringOf(volume.name)?.startsWith(volumePrefix));
  const volumeName = stringOf(existing?.name) ?? generatedName();
  let mounted = false;
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list.filter(isRecord)) {
      const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      if (mounts.some((mount) => isRecord(mount) && mount.mountPath === tokenMountPath)) continue;
      container.volumeMounts = [
        ...mounts,
        { name: volumeName, readOnly: true, mountPath: tokenMountPath },
      ];
      mounted = true;
    }
  }
  if (mounted && existing === undefined) {
    spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), tokenVolume(volumeName)];
  }
}

function generatedName(): string {
  let suffix = '';
  for (let index = 0; index < 5; index++) {
    suffix += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  }
  return `${volumePrefix}${suffix}`;
}

/** The projected volume (admission runs after defaulting, so it carries its own defaults). */
function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      sources: [
        // 3607 s: an hour plus the kubelet's refresh slack, so legacy clients see a token last an hour.
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        {
          configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
        },
        {
          downwardAPI: {
            items: [
              {
                path: 'namespace',
                fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
              },
            ],
          },
        },
      ],
      defaultMode: 420,
    },
  };
}
