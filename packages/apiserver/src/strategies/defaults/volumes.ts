// The defaults k8s.io/kubernetes' core/v1 SetDefaults_* give a Pod's volumes (and a claim template's
// spec): file modes of the projected-file sources, an emptyDir for a volume naming no source.
import { isRecord, type Json } from '../../apimachinery/objects.ts';

/** 0644, the mode SetDefaults_{Secret,ConfigMap,DownwardAPI,Projected}VolumeSource give their files. */
const defaultFileMode = 420;

/** Every volume source field of core/v1 VolumeSource (a volume naming none of them gets an emptyDir). */
const volumeSources = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

/** Default every volume of a pod spec in place. */
export function defaultVolumes(volumes: unknown): void {
  if (!Array.isArray(volumes)) return;
  for (const volume of volumes.filter(isRecord)) defaultVolume(volume);
}

function defaultVolume(volume: Json): void {
  if (!volumeSources.some((source) => volume[source] !== undefined && volume[source] !== null)) {
    volume.emptyDir = {};
  }
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const value = volume[source];
    if (isRecord(value) && value.defaultMode === undefined) value.defaultMode = defaultFileMode;
  }
  if (isRecord(volume.hostPath) && volume.hostPath.type === undefined) volume.hostPath.type = '';
  if (isRecord(volume.downwardAPI)) defaultFileFieldRefs(volume.downwardAPI.items);
  if (isRecord(volume.projected) && Array.isArray(volume.projected.sources)) {
    for (const source of volume.projected.sources.filter(isRecord)) {
      if (isRecord(source.downwardAPI)) defaultFileFieldRefs(source.downwardAPI.items);
      const token = source.serviceAccountToken;
      if (isRecord(token) && token.expirationSeconds === undefined) {
        token.expirationSeconds = 3600;
      }
    }
  }
  if (isRecord(volume.iscsi) && volume.iscsi.iscsiInterface === undefined) {
    volume.iscsi.iscsiInterface = 'default';
  }
  if (isRecord(volume.rbd)) {
    const rbd = volume.rbd;
    rbd.pool ??= 'rbd';
    rbd.user ??= 'admin';
    rbd.keyring ??= '/etc/ceph/keyring';
  }
  if (isRecord(volume.azureDisk)) {
    const disk = volume.azureDisk;
    disk.cachingMode ??= 'ReadWrite';
    disk.fsType ??= 'ext4';
    disk.readOnly ??= false;
    disk.kind ??= 'Shared';
  }
  if (isRecord(volume.scaleIO)) {
    volume.scaleIO.storageMode ??= 'ThinProvisioned';
    volume.scaleIO.fsType ??= 'xfs';
  }
  const ephemeral = volume.ephemeral;
  if (isRecord(ephemeral) && isRecord(ephemeral.volumeClaimTemplate)) {
    const template = ephemeral.volumeClaimTemplate;
    if (isRecord(template.spec)) defaultClaimSpec(template.spec);
  }
}

/** The fieldRefs of downward API files name their API version (SetDefaults_ObjectFieldSelector). */
export function defaultFileFieldRefs(items: unknown): void {
  if (!Array.isArray(items)) return;
  for (const item of items.filter(isRecord)) defaultFieldRef(item.fieldRef);
}

/** SetDefaults_ObjectFieldSelector: a fieldRef without apiVersion selects from v1. */
export function defaultFieldRef(fieldRef: unknown): void {
  if (isRecord(fieldRef) && (fieldRef.apiVersion === undefined || fieldRef.apiVersion === '')) {
    fieldRef.apiVersion = 'v1';
  }
}

/** SetDefaults_PersistentVolumeClaimSpec: a claim without volumeMode mounts a filesystem. */
export function defaultClaimSpec(spec: Json): void {
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
}
