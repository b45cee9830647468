// The defaults core/v1 SetDefaults_Container, _ContainerPort, _Probe, _HTTPGetAction, _GRPCAction and
// _ObjectFieldSelector give a container (init and ephemeral containers alike).
import { isRecord, type Json } from '../../apimachinery/objects.ts';
import { defaultFieldRef } from './volumes.ts';

/** Default every container of a list in place. */
export function defaultContainers(containers: unknown): void {
  if (!Array.isArray(containers)) return;
  for (const container of containers.filter(isRecord)) defaultContainer(container);
}

function defaultContainer(container: Json): void {
  if (container.imagePullPolicy === undefined || container.imagePullPolicy === '') {
    container.imagePullPolicy =
      imageTag(String(container.image ?? '')) === 'latest' ? 'Always' : 'IfNotPresent';
  }
  if (container.terminationMessagePath === undefined || container.terminationMessagePath === '') {
    container.terminationMessagePath = '/dev/termination-log';
  }
  if (
    container.terminationMessagePolicy === undefined ||
    container.terminationMessagePolicy === ''
  ) {
    container.terminationMessagePolicy = 'File';
  }
  // ResourceRequirements is a struct Go always writes.
  if (!isRecord(container.resources)) container.resources = {};
  if (Array.isArray(container.ports)) {
    for (const port of container.ports.filter(isRecord)) {
      if (port.protocol === undefined || port.protocol === '') port.protocol = 'TCP';
    }
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (isRecord(container[probe])) defaultProbe(container[probe]);
  }
  if (isRecord(container.lifecycle)) {
    for (const handler of ['postStart', 'preStop']) {
      const value = container.lifecycle[handler];
      if (isRecord(value) && isRecord(value.httpGet)) defaultHttpGet(value.httpGet);
    }
  }
  if (Array.isArray(container.env)) {
    for (const variable of container.env.filter(isRecord)) {
      if (isRecord(variable.valueFrom)) defaultFieldRef(variable.valueFrom.fieldRef);
    }
  }
}

/** SetDefaults_Probe and the defaults of its handler. */
function defaultProbe(probe: Json): void {
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  if (isRecord(probe.httpGet)) defaultHttpGet(probe.httpGet);
  if (isRecord(probe.grpc) && (probe.grpc.service === undefined || probe.grpc.service === null)) {
    probe.grpc.service = '';
  }
}

function defaultHttpGet(action: Json): void {
  if (action.path === undefined || action.path === '') action.path = '/';
  if (action.scheme === undefined || action.scheme === '') action.scheme = 'HTTP';
}

/**
 * The tag of an image reference as the kubelet's parsers.ParseImageName reads it: `latest` when the
 * reference names neither tag nor digest, empty when it names only a digest.
 */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  // A colon before the last slash belongs to a registry's port (localhost:5000/app).
  if (colon > slash) return name.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}
