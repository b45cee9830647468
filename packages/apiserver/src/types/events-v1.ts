// Built-in type definitions of events.k8s.io/v1 (k8s.io/api): the newer Event shape, stored with core/v1 Events.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

const microTime = 'microTime' as const;

/** The events-v1 types, top-level kinds first. */
export const eventsV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.events.v1.Event',
    description: 'A report of something that happened to an object, emitted by a controller.',
    gvk: { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      {
        json: 'eventTime',
        number: 2,
        type: microTime,
        keepZero: true,
        required: true,
        description: 'When the event was first observed.',
      },
      {
        json: 'series',
        number: 3,
        type: { message: 'io.k8s.api.events.v1.EventSeries' },
        description: 'The series this event belongs to; absent for a singleton event.',
      },
      {
        json: 'reportingController',
        number: 4,
        type: 'string',
        description: 'The controller that emitted the event.',
      },
      {
        json: 'reportingInstance',
        number: 5,
        type: 'string',
        description: 'The instance of that controller.',
      },
      {
        json: 'action',
        number: 6,
        type: 'string',
        description: 'What was done (or failed) to the regarding object.',
      },
      { json: 'reason', number: 7, type: 'string', description: 'Why the action was taken.' },
      {
        json: 'regarding',
        number: 8,
        type: { message: 'io.k8s.api.core.v1.ObjectReference' },
        description: 'The object the event is about.',
      },
      {
        json: 'related',
        number: 9,
        type: { message: 'io.k8s.api.core.v1.ObjectReference' },
        description: 'A secondary object involved.',
      },
      { json: 'note', number: 10, type: 'string', description: 'A human-readable description.' },
      { json: 'type', number: 11, type: 'string', description: 'Normal or Warning.' },
      { json: 'deprecatedSource', number: 12, type: { message: 'io.k8s.api.core.v1.EventSource' } },
      { json: 'deprecatedFirstTimestamp', number: 13, type: 'time' },
      { json: 'deprecatedLastTimestamp', number: 14, type: 'time' },
      { json: 'deprecatedCount', number: 15, type: 'int32' },
    ],
  },
  {
    name: 'io.k8s.api.events.v1.EventSeries',
    description: 'How often an event recurred, up to the last heartbeat.',
    fields: [
      { json: 'count', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'lastObservedTime', number: 2, type: microTime, keepZero: true, required: true },
    ],
  },
];
