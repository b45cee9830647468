import { describe, expect, it } from 'vitest';
import {
  canonicalFieldLabel,
  type FieldLabelResource,
  selectableFields,
  unsupportedFieldLabel,
} from './field-labels.ts';

const builtin = (group: string, kind: string, namespaced = true): FieldLabelResource => ({
  group,
  kind,
  namespaced,
  builtin: true,
  fieldSelectors: [],
});

describe('unsupportedFieldLabel', () => {
  it('words the default conversion for built-in kinds without their own', () => {
    expect(unsupportedFieldLabel(builtin('', 'ConfigMap'), 'spec.nothing')).toBe(
      '"spec.nothing" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    expect(unsupportedFieldLabel(builtin('apps', 'Deployment'), 'metadata.namespace')).toBe(
      undefined,
    );
    // The default conversion accepts metadata.namespace even for a cluster-scoped kind.
    expect(
      unsupportedFieldLabel(
        builtin('apiextensions.k8s.io', 'CustomResourceDefinition', false),
        'metadata.namespace',
      ),
    ).toBe(undefined);
  });

  it("words each kind's own conversion, which may leave metadata.namespace out", () => {
    expect(unsupportedFieldLabel(builtin('', 'Secret'), 'spec.nothing')).toBe(
      'field label not supported: spec.nothing',
    );
    expect(unsupportedFieldLabel(builtin('', 'Secret'), 'type')).toBe(undefined);
    expect(unsupportedFieldLabel(builtin('', 'Namespace', false), 'metadata.namespace')).toBe(
      'field label not supported: metadata.namespace',
    );
    expect(unsupportedFieldLabel(builtin('batch', 'Job'), 'spec.nothing')).toBe(
      'field label "spec.nothing" not supported for batchv1.Job',
    );
    expect(unsupportedFieldLabel(builtin('batch', 'Job'), 'status.successful')).toBe(undefined);
    expect(unsupportedFieldLabel(builtin('events.k8s.io', 'Event'), 'involvedObject.name')).toBe(
      'field label not supported: involvedObject.name',
    );
    expect(unsupportedFieldLabel(builtin('events.k8s.io', 'Event'), 'regarding.name')).toBe(
      undefined,
    );
  });

  it('accepts selectable fields of custom resources and refuses metadata.namespace when cluster-scoped', () => {
    const custom = (namespaced: boolean): FieldLabelResource => ({
      group: 'example.com',
      kind: 'Widget',
      namespaced,
      builtin: false,
      fieldSelectors: ['spec.color'],
    });
    expect(unsupportedFieldLabel(custom(true), 'spec.color')).toBe(undefined);
    expect(unsupportedFieldLabel(custom(true), 'metadata.namespace')).toBe(undefined);
    expect(unsupportedFieldLabel(custom(false), 'metadata.namespace')).toBe(
      'field label not supported: metadata.namespace',
    );
    expect(unsupportedFieldLabel(custom(true), 'spec.size')).toBe(
      'field label not supported: spec.size',
    );
  });
});

describe('selectableFields', () => {
  it("reads each kind's own fields as its strategy does", () => {
    expect(
      selectableFields(builtin('batch', 'Job'), {
        metadata: { name: 'j', namespace: 'ns' },
        status: { succeeded: 2 },
      }),
    ).toEqual({ 'metadata.name': 'j', 'metadata.namespace': 'ns', 'status.successful': '2' });
    const pod = selectableFields(builtin('', 'Pod'), {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] },
    });
    expect(pod).toMatchObject({
      'spec.nodeName': 'n1',
      'spec.hostNetwork': 'false',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.1',
    });
    expect(canonicalFieldLabel(builtin('', 'Pod'), 'spec.host')).toBe('spec.nodeName');
  });

  it('names the fields of a stored v1 Event the way each Event API does', () => {
    const event = {
      metadata: { name: 'e', namespace: 'ns' },
      involvedObject: { kind: 'Pod', name: 'p' },
      source: { component: 'kubelet' },
      reportingComponent: 'c',
      type: 'Normal',
    };
    expect(selectableFields(builtin('', 'Event'), event)).toMatchObject({
      'involvedObject.kind': 'Pod',
      source: 'kubelet',
      reportingComponent: 'c',
    });
    expect(selectableFields(builtin('events.k8s.io', 'Event'), event)).toMatchObject({
      'regarding.kind': 'Pod',
      'regarding.name': 'p',
      reportingController: 'c',
      type: 'Normal',
    });
  });

  it('leaves metadata.namespace out for cluster-scoped kinds', () => {
    expect(selectableFields(builtin('', 'Namespace', false), { metadata: { name: 'n' } })).toEqual({
      'metadata.name': 'n',
      'status.phase': '',
    });
  });
});
