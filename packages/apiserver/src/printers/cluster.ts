// Printers of Leases, RBAC roles and bindings, Ingresses, PodDisruptionBudgets and PriorityClasses.
import {
  age,
  ageColumn,
  column,
  count,
  intOrString,
  list,
  namedPrinter,
  record,
  type TablePrinter,
  text,
} from './cells.ts';

/** kube-apiserver's printer for Leases. */
export const leasePrinter = namedPrinter(
  [column('Holder', 'string', 'The identity of the holder of the lease.'), ageColumn],
  (object, nowMs) => [text(record(object.spec).holderIdentity), age(object, nowMs)],
);

/** RBAC roles print their creation time as an RFC 3339 text. */
export const rolePrinter = namedPrinter(
  [column('Created At', 'string', 'When the object was created, in RFC 3339.')],
  (object) => [text(record(object.metadata).creationTimestamp)],
);

/** kube-apiserver's printer for RoleBindings and ClusterRoleBindings. */
export function bindingPrinter(): TablePrinter {
  return namedPrinter(
    [
      column('Role', 'string', 'The role the binding grants.'),
      ageColumn,
      column('Users', 'string', 'Users in the binding.', 1),
      column('Groups', 'string', 'Groups in the binding.', 1),
      column('ServiceAccounts', 'string', 'ServiceAccounts in the binding.', 1),
    ],
    (binding, nowMs) => {
      const roleRef = record(binding.roleRef);
      const subjects = list(binding.subjects).map(record);
      const of = (kind: string): string =>
        subjects
          .filter((subject) => subject.kind === kind)
          .map((subject) =>
            kind === 'ServiceAccount'
              ? `${text(subject.namespace)}/${text(subject.name)}`
              : text(subject.name),
          )
          .join(', ');
      return [
        `${text(roleRef.kind)}/${text(roleRef.name)}`,
        age(binding, nowMs),
        of('User'),
        of('Group'),
        of('ServiceAccount'),
      ];
    },
  );
}

/** kube-apiserver's printer for Ingresses. */
export const ingressPrinter = namedPrinter(
  [
    column('Class', 'string', 'The name of the IngressClass cluster resource.'),
    column(
      'Hosts',
      'string',
      'Hosts that incoming requests are matched against before the ingress rule',
    ),
    column(
      'Address',
      'string',
      'Address is a list containing ingress points for the load-balancer',
    ),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  (ingress, nowMs) => {
    const spec = record(ingress.spec);
    const hosts = list(spec.rules)
      .map((rule) => text(record(rule).host))
      .filter((host) => host !== '');
    let hostsCell = hosts.length === 0 ? '*' : hosts.slice(0, 4).join(',');
    if (hosts.length > 4)
      hostsCell = `${hosts.slice(0, 3).join(',')} + ${hosts.length - 3} more...`;
    const addresses = list(record(record(ingress.status).loadBalancer).ingress)
      .map((entry) => text(record(entry).ip) || text(record(entry).hostname))
      .join(',');
    return [
      text(spec.ingressClassName) || '<none>',
      hostsCell,
      addresses,
      list(spec.tls).length > 0 ? '80, 443' : '80',
      age(ingress, nowMs),
    ];
  },
);

/** kube-apiserver's printer for PodDisruptionBudgets. */
export const podDisruptionBudgetPrinter = namedPrinter(
  [
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    ageColumn,
  ],
  (object, nowMs) => {
    const spec = record(object.spec);
    return [
      intOrString(spec.minAvailable),
      intOrString(spec.maxUnavailable),
      count(record(object.status).disruptionsAllowed),
      age(object, nowMs),
    ];
  },
);

/** kube-apiserver's printer for PriorityClasses. */
export const priorityClassPrinter = namedPrinter(
  [
    column('Value', 'integer', 'The priority of pods of this class.'),
    column('Global-Default', 'boolean', 'Whether this class is the default for pods without one.'),
    column('Preemption Policy', 'string', 'Whether pods of this class preempt others.'),
    ageColumn,
  ],
  (object, nowMs) => [
    count(object.value),
    object.globalDefault === true,
    text(object.preemptionPolicy) || 'PreemptLowerPriority',
    age(object, nowMs),
  ],
);
