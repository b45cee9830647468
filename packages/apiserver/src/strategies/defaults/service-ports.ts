// The cluster-wide address and port spaces Services draw from: clusterIPs and nodePorts in use are the
// ones stored Services hold (as kube-apiserver's allocators rebuild their bitmaps from storage), so a
// deleted Service frees its own at once.

import { isRecord, type Json, metaOf } from '../../apimachinery/objects.ts';
import type { ServerContext } from '../../registry/server-context.ts';
import type { Cause } from '../../registry/strategy.ts';

/** The default --service-node-port-range. */
const nodePortMin = 30000;
const nodePortMax = 32767;

/** Where `service` stands among stored ones: its namespace and name, to skip itself on update. */
function isSelf(service: Json, other: Json): boolean {
  const a = metaOf(service);
  const b = metaOf(other);
  return a.namespace === b.namespace && a.name === b.name;
}

function others(context: ServerContext, service: Json): Json[] {
  return context.store.list('/services', undefined).filter((other) => !isSelf(service, other));
}

/** The clusterIPs other Services hold. */
export function clusterIpsInUse(context: ServerContext, service: Json): Set<string> {
  const used = new Set<string>();
  for (const other of others(context, service)) {
    const spec = isRecord(other.spec) ? other.spec : {};
    const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
    for (const ip of ips) if (typeof ip === 'string' && ip !== '' && ip !== 'None') used.add(ip);
  }
  return used;
}

/** The cause for a requested clusterIP the allocator refuses (`reason` in its words). */
export function clusterIpRefused(ips: unknown[], ip: string, reason: string): Cause {
  const listed = ips.map((item) => JSON.stringify(String(item))).join(', ');
  return {
    type: 'FieldValueInvalid',
    message: `Invalid value: []string{${listed}}: failed to allocate IP ${ip}: ${reason}`,
    field: 'spec.clusterIPs',
  };
}

/**
 * Give every port of a NodePort or LoadBalancer Service (unless it opts out of them) a nodePort:
 * requested ones must be free and in range, the rest are drawn at random from the free ones as the
 * port allocator does. Answers the causes of refused requests.
 */
export function allocateNodePorts(context: ServerContext, service: Json, spec: Json): Cause[] {
  const needs =
    spec.type === 'NodePort' ||
    (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (!needs) return [];
  const used = new Set<number>();
  for (const other of others(context, service)) {
    const otherSpec = isRecord(other.spec) ? other.spec : {};
    for (const port of Array.isArray(otherSpec.ports) ? otherSpec.ports.filter(isRecord) : []) {
      if (typeof port.nodePort === 'number') used.add(port.nodePort);
    }
    if (typeof otherSpec.healthCheckNodePort === 'number') used.add(otherSpec.healthCheckNodePort);
  }
  const causes: Cause[] = [];
  const own = new Set<number>();
  ports.forEach((port, index) => {
    if (!isRecord(port) || typeof port.nodePort !== 'number' || port.nodePort === 0) return;
    const field = `spec.ports[${index}].nodePort`;
    if (port.nodePort < nodePortMin || port.nodePort > nodePortMax) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${port.nodePort}: provided port is not in the valid range. The range of valid ports is ${nodePortMin}-${nodePortMax}`,
        field,
      });
    } else if (used.has(port.nodePort)) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${port.nodePort}: provided port is already allocated`,
        field,
      });
    } else {
      own.add(port.nodePort);
    }
  });
  if (causes.length > 0) return causes;
  for (const port of ports.filter(isRecord)) {
    if (typeof port.nodePort === 'number' && port.nodePort !== 0) continue;
    const size = nodePortMax - nodePortMin + 1;
    const offset = Math.floor(Math.random() * size);
    for (let step = 0; step < size; step++) {
      const candidate = nodePortMin + ((offset + step) % size);
      if (!used.has(candidate) && !own.has(candidate)) {
        port.nodePort = candidate;
        own.add(candidate);
        break;
      }
    }
  }
  return causes;
}
