// The defaults a PodSpec gets wherever it is decoded (a Pod or any pod template), as core/v1
// SetDefaults_PodSpec and the defaulters of its members give them, and the Pod-only ones of SetDefaults_Pod.
import { isRecord, type Json } from '../../apimachinery/objects.ts';
import { defaultContainers } from './containers.ts';
import { defaultVolumes } from './volumes.ts';

/** Default a PodSpec in place (a Pod's or a template's). */
export function defaultPodSpec(spec: Json): void {
  if (spec.dnsPolicy === undefined || spec.dnsPolicy === '') spec.dnsPolicy = 'ClusterFirst';
  if (spec.restartPolicy === undefined || spec.restartPolicy === '') spec.restartPolicy = 'Always';
  if (!isRecord(spec.securityContext)) spec.securityContext = {};
  if (
    spec.terminationGracePeriodSeconds === undefined ||
    spec.terminationGracePeriodSeconds === null
  ) {
    spec.terminationGracePeriodSeconds = 30;
  }
  if (spec.schedulerName === undefined || spec.schedulerName === '') {
    spec.schedulerName = 'default-scheduler';
  }
  defaultContainers(spec.initContainers);
  defaultContainers(spec.containers);
  defaultContainers(spec.ephemeralContainers);
  defaultVolumes(spec.volumes);
}

/** Default a PodTemplateSpec in place (a workload's `spec.template`). */
export function defaultPodTemplate(template: unknown): void {
  if (!isRecord(template)) return;
  if (!isRecord(template.spec)) template.spec = {};
  defaultPodSpec(template.spec as Json);
}

/**
 * SetDefaults_Pod on top of the PodSpec defaults: service links on, requests copied from limits where
 * a container sets none, and host-network containers' hostPort equal to their containerPort.
 */
export function defaultPod(pod: Json): void {
  if (!isRecord(pod.spec)) pod.spec = {};
  const spec = pod.spec as Json;
  defaultPodSpec(spec);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) {
    spec.enableServiceLinks = true;
  }
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list.filter(isRecord)) {
      const resources = isRecord(container.resources) ? container.resources : {};
      if (isRecord(resources.limits)) {
        const requests = isRecord(resources.requests) ? resources.requests : {};
        for (const [name, quantity] of Object.entries(resources.limits)) {
          if (requests[name] === undefined) requests[name] = quantity;
        }
        if (Object.keys(requests).length > 0) resources.requests = requests;
      }
      if (spec.hostNetwork === true && Array.isArray(container.ports)) {
        for (const port of container.ports.filter(isRecord)) {
          if (!port.hostPort) port.hostPort = port.containerPort;
        }
      }
    }
  }
}
