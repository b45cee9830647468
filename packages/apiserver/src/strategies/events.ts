// Events: v1 Events and events.k8s.io/v1 Events share one storage (in the v1 shape) and convert at the
// API edge (registry/event-conversion.ts holds the field mapping).

import { eventsV1ToEvent, eventToEventsV1 } from '../registry/event-conversion.ts';
import type { Strategy } from '../registry/strategy.ts';
import { apiVersionOf } from '../resources/builtin-resources.ts';
import { builtinStrategy, pruneTopLevel } from './builtin-strategy.ts';

/** v1 Event strategy. */
export const coreEventStrategy: Strategy = {
  ...builtinStrategy,
  topLevelFields: [
    'involvedObject',
    'reason',
    'message',
    'source',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'type',
    'eventTime',
    'series',
    'action',
    'related',
    'reportingComponent',
    'reportingInstance',
  ],
};

const eventsV1Fields = [
  'eventTime',
  'series',
  'reportingController',
  'reportingInstance',
  'action',
  'reason',
  'regarding',
  'related',
  'note',
  'type',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
];

/**
 * events.k8s.io/v1 Event strategy: a body loses the fields that version does not have, then becomes
 * a v1 Event; from then on it is validated and stored as one.
 */
export const eventsV1Strategy: Strategy = {
  ...coreEventStrategy,
  toStored(_info, object) {
    pruneTopLevel(eventsV1Fields, object);
    return eventsV1ToEvent(object);
  },
  toVersion: (info, object) => eventToEventsV1(object, apiVersionOf(info)),
};
