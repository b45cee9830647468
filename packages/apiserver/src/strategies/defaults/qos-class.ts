// A Pod's quality-of-service class, as the API server records it in status.qosClass on create
// (k8s.io/kubernetes' qos.GetPodQOS over cpu and memory).
import { isRecord, type Json } from '../../apimachinery/objects.ts';

const qosResources = ['cpu', 'memory'];

/** BestEffort (no cpu/memory requests or limits), Guaranteed (limits equal requests everywhere), else Burstable. */
export function podQosClass(spec: Json): string {
  let any = false;
  let guaranteed = true;
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list.filter(isRecord)) {
      const resources = isRecord(container.resources) ? container.resources : {};
      const requests = isRecord(resources.requests) ? resources.requests : {};
      const limits = isRecord(resources.limits) ? resources.limits : {};
      for (const name of qosResources) {
        if (nonZero(requests[name]) || nonZero(limits[name])) any = true;
        if (!nonZero(limits[name])) guaranteed = false;
        else if (requests[name] !== undefined && String(requests[name]) !== String(limits[name])) {
          guaranteed = false;
        }
      }
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function nonZero(quantity: unknown): boolean {
  if (quantity === undefined || quantity === null) return false;
  return !/^[+]?0*(\.0*)?[a-zA-Z]*$/.test(String(quantity));
}
