// Services: their defaults (SetDefaults_Service), a clusterIP from the service range and nodePorts
// from the node port range, with the allocators' refusals.

import { isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { invalid } from '../apimachinery/status.ts';
import type { ServerContext } from '../registry/server-context.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';
import { allocateNodePorts, clusterIpRefused, clusterIpsInUse } from './defaults/service-ports.ts';

/** The service range: kube-apiserver's default --service-cluster-ip-range, which envtest keeps. */
const serviceRange = '10.0.0.0/24';

/** True when `ip` is a host address of the service range. */
function inServiceRange(ip: string): boolean {
  const match = /^10\.0\.0\.(\d{1,3})$/.exec(ip);
  return match !== null && Number(match[1]) >= 1 && Number(match[1]) <= 254;
}

function specOf(object: KubeObject): Json {
  if (!isRecord(object.spec)) object.spec = {};
  return object.spec as Json;
}

/** SetDefaults_Service: what a decoded Service gets on every write. */
function defaultService(spec: Json): void {
  if (spec.sessionAffinity === undefined || spec.sessionAffinity === '') {
    spec.sessionAffinity = 'None';
  }
  if (spec.type === undefined || spec.type === '') spec.type = 'ClusterIP';
  if (spec.sessionAffinity === 'ClientIP') {
    const config = isRecord(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : {};
    const clientIP = isRecord(config.clientIP) ? config.clientIP : {};
    clientIP.timeoutSeconds ??= 10800;
    config.clientIP = clientIP;
    spec.sessionAffinityConfig = config;
  }
  if (Array.isArray(spec.ports)) {
    for (const port of spec.ports.filter(isRecord)) {
      if (port.protocol === undefined || port.protocol === '') port.protocol = 'TCP';
      if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') {
        port.targetPort = port.port;
      }
    }
  }
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (external && (spec.externalTrafficPolicy === undefined || spec.externalTrafficPolicy === '')) {
    spec.externalTrafficPolicy = 'Cluster';
  }
  if (spec.type !== 'ExternalName' && spec.internalTrafficPolicy === undefined) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) {
    spec.allocateLoadBalancerNodePorts = true;
  }
}

/**
 * The IP family fields the allocator sets on a Service that has a clusterIP (this server is
 * single-stack IPv4); a headless Service without selector asks for dual-stack where it is available.
 */
function defaultIpFamilies(spec: Json): void {
  if (spec.type === 'ExternalName') return;
  const headless = spec.clusterIP === 'None';
  const selectorless = !isRecord(spec.selector) || Object.keys(spec.selector).length === 0;
  if (spec.ipFamilyPolicy === undefined) {
    spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
}

/** Take a clusterIP for a new Service (or check the requested one), and its nodePorts. */
function allocate(
  context: ServerContext,
  info: ResourceInfo,
  object: KubeObject,
  self: KubeObject = object,
): void {
  const spec = specOf(object);
  const name = stringOf(metaOf(self).name) ?? '';
  if (spec.type !== 'ExternalName') {
    const used = clusterIpsInUse(context, self);
    const requested = stringOf(spec.clusterIP) ?? '';
    if (requested !== '' && requested !== 'None') {
      const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [requested];
      if (!inServiceRange(requested)) {
        throw invalid(info, name, [
          clusterIpRefused(
            ips,
            requested,
            `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${serviceRange}`,
          ),
        ]);
      }
      if (used.has(requested)) {
        throw invalid(info, name, [
          clusterIpRefused(ips, requested, 'provided IP is already allocated'),
        ]);
      }
    }
    if (requested === '') {
      // A dry run shows the address it would get without taking it, as kube's dry-run allocator does.
      const ip = context.dryRun ? context.clusterIps.peek(used) : context.clusterIps.allocate(used);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    } else if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) {
      spec.clusterIPs = [requested];
    }
    defaultIpFamilies(spec);
  }
  const causes = allocateNodePorts(context, self, spec);
  if (causes.length > 0) throw invalid(info, name, causes);
}

/**
 * What an update keeps of the allocated values when the body omits them (patchAllocatedValues):
 * the clusterIPs and IP families, and each port's nodePort matched by port number and protocol.
 */
function keepAllocated(existing: KubeObject, next: KubeObject): void {
  const before = isRecord(existing.spec) ? existing.spec : {};
  const spec = specOf(next);
  if (spec.type !== 'ExternalName' && before.type !== 'ExternalName') {
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
      if ((spec[field] === undefined || spec[field] === '') && before[field] !== undefined) {
        spec[field] = structuredClone(before[field]);
      }
    }
  }
  const oldPorts = Array.isArray(before.ports) ? before.ports.filter(isRecord) : [];
  for (const port of Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : []) {
    if (typeof port.nodePort === 'number' && port.nodePort !== 0) continue;
    const match = oldPorts.find(
      (old) => old.port === port.port && (old.protocol ?? 'TCP') === (port.protocol ?? 'TCP'),
    );
    if (typeof match?.nodePort === 'number') port.nodePort = match.nodePort;
  }
}

/** Service strategy: defaults, clusterIP and nodePorts (none for ExternalName). */
export const serviceStrategy: Strategy = {
  ...builtinStrategy,
  canonicalize(context, info, object) {
    builtinStrategy.canonicalize.call(this, context, info, object);
    defaultService(specOf(object));
  },
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    defaultService(specOf(object));
    allocate(context, info, object);
    object.status = { loadBalancer: {} };
  },
  prepareForUpdate(context, info, existing, next) {
    builtinStrategy.prepareForUpdate(context, info, existing, next);
    defaultService(specOf(next));
    keepAllocated(existing, next);
    const spec = specOf(next);
    // `next` gets its name and namespace back only after this hook: `existing` says which Service it is.
    if (spec.type !== 'ExternalName' && (spec.clusterIP === undefined || spec.clusterIP === '')) {
      allocate(context, info, next, existing);
    } else {
      const causes = allocateNodePorts(context, existing, spec);
      if (causes.length > 0) throw invalid(info, stringOf(metaOf(existing).name) ?? '', causes);
      if (spec.type !== 'ExternalName') defaultIpFamilies(spec);
    }
  },
};
