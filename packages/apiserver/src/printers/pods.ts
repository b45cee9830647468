// The Pod printer: kubectl's READY, STATUS (init progress, waiting or terminated reasons) and RESTARTS.
import {
  age,
  ageColumn,
  column,
  conditionTrue,
  count,
  type Json,
  list,
  nameColumn,
  nameOf,
  record,
  type TablePrinter,
  text,
} from './cells.ts';

/** Pod STATUS as kubectl shows it: init progress, a waiting or terminated reason, or the phase. */
function podStatus(pod: Json): { reason: string; ready: number; restarts: number } {
  const spec = record(pod.spec);
  const status = record(pod.status);
  let reason = text(status.reason) || text(status.phase);
  let restarts = 0;
  let ready = 0;
  const initContainers = list(spec.initContainers);
  let initializing = false;
  list(status.initContainerStatuses).some((entry, index) => {
    const container = record(entry);
    restarts += count(container.restartCount);
    const state = record(container.state);
    const terminated = state.terminated === undefined ? undefined : record(state.terminated);
    const waiting = state.waiting === undefined ? undefined : record(state.waiting);
    if (terminated !== undefined && count(terminated.exitCode) === 0) return false;
    initializing = true;
    if (terminated !== undefined) {
      reason =
        text(terminated.reason) ||
        (count(terminated.signal) !== 0
          ? `Init:Signal:${count(terminated.signal)}`
          : `Init:ExitCode:${count(terminated.exitCode)}`);
    } else if (
      waiting !== undefined &&
      text(waiting.reason) !== '' &&
      waiting.reason !== 'PodInitializing'
    ) {
      reason = `Init:${text(waiting.reason)}`;
    } else {
      reason = `Init:${index}/${initContainers.length}`;
    }
    return true;
  });
  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = 0;
    let running = false;
    for (const entry of [...list(status.containerStatuses)].reverse()) {
      const container = record(entry);
      restarts += count(container.restartCount);
      const state = record(container.state);
      const waiting = record(state.waiting);
      const terminated = state.terminated === undefined ? undefined : record(state.terminated);
      if (text(waiting.reason) !== '') reason = text(waiting.reason);
      else if (terminated !== undefined && text(terminated.reason) !== '') {
        reason = text(terminated.reason);
      } else if (terminated !== undefined) {
        reason =
          count(terminated.signal) !== 0
            ? `Signal:${count(terminated.signal)}`
            : `ExitCode:${count(terminated.exitCode)}`;
      } else if (container.ready === true && state.running !== undefined) {
        running = true;
        ready += 1;
      }
    }
    if (reason === 'Completed' && running) {
      reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
    }
  }
  const deleting = record(pod.metadata).deletionTimestamp !== undefined;
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting) reason = 'Terminating';
  return { reason, ready, restarts };
}

/** kube-apiserver's printer for Pods. */
export const podPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn,
    column('IP', 'string', 'IP address allocated to the pod.', 1),
    column('Node', 'string', 'The node the pod is scheduled onto.', 1),
    column('Nominated Node', 'string', 'The node a preempting pod is nominated to run on.', 1),
    column('Readiness Gates', 'string', 'How many of the pod readiness gates are met.', 1),
  ],
  cells(pod, nowMs) {
    const spec = record(pod.spec);
    const status = record(pod.status);
    const { reason, ready, restarts } = podStatus(pod);
    const gates = list(spec.readinessGates);
    let gatesCell = '<none>';
    if (gates.length > 0) {
      const met = gates.filter((gate) => conditionTrue(pod, text(record(gate).conditionType)));
      gatesCell = `${met.length}/${gates.length}`;
    }
    return [
      nameOf(pod),
      `${ready}/${list(spec.containers).length}`,
      reason,
      String(restarts),
      age(pod, nowMs),
      text(status.podIP) || '<none>',
      text(spec.nodeName) || '<none>',
      text(status.nominatedNodeName) || '<none>',
      gatesCell,
    ];
  },
};
