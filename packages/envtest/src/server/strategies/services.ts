// Services: type, session affinity and port defaults, and a clusterIP from the service range.
import { isRecord } from '../objects.ts';
import { builtinStrategy, type Strategy } from './strategy.ts';

/** Hands out clusterIPs in order, as the service IP allocator does (minus the bitmap: nothing is freed). */
export class ClusterIpAllocator {
  #next = 10;

  /** The next free address, taken. */
  allocate(): string {
    const ip = this.peek();
    this.#next += 1;
    return ip;
  }

  /** The address {@link ClusterIpAllocator.allocate} would hand out next (a dry run shows it). */
  peek(): string {
    return `10.0.${Math.floor(this.#next / 250)}.${(this.#next % 250) + 1}`;
  }
}

/** Service strategy: defaults of a new Service and its clusterIP (none for ExternalName). */
export const serviceStrategy: Strategy = {
  ...builtinStrategy,
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    const spec = isRecord(object.spec) ? object.spec : {};
    object.spec = spec;
    if (spec.type === undefined) spec.type = 'ClusterIP';
    if (spec.sessionAffinity === undefined) spec.sessionAffinity = 'None';
    if (spec.clusterIP === undefined && spec.type !== 'ExternalName') {
      // A dry run shows the address it would get without taking it, as kube's dry-run allocator does.
      const ip = context.dryRun ? context.clusterIps.peek() : context.clusterIps.allocate();
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
    if (Array.isArray(spec.ports)) {
      for (const port of spec.ports.filter(isRecord)) {
        if (port.protocol === undefined) port.protocol = 'TCP';
        if (port.targetPort === undefined) port.targetPort = port.port;
      }
    }
    object.status = { loadBalancer: {} };
  },
};
