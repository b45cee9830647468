import { describe, expect, it } from 'vitest';
import { imageTag } from './containers.ts';
import { podQosClass } from './qos-class.ts';

describe('imageTag', () => {
  it.for([
    ['nginx', 'latest'],
    ['nginx:1.25', '1.25'],
    ['localhost:5000/app', 'latest'],
    ['localhost:5000/app:v2', 'v2'],
    [`nginx@sha256:${'a'.repeat(64)}`, ''],
    [`nginx:1.25@sha256:${'a'.repeat(64)}`, '1.25'],
  ] as const)('reads %s as tag %j', ([image, tag]) => {
    expect(imageTag(image)).toBe(tag);
  });
});

describe('podQosClass', () => {
  const pod = (resources: unknown) => ({ containers: [{ name: 'c', resources }] });

  it('is BestEffort without cpu or memory, zero quantities included', () => {
    expect(podQosClass(pod({}))).toBe('BestEffort');
    expect(podQosClass(pod({ requests: { cpu: '0', memory: '0Mi' } }))).toBe('BestEffort');
    expect(podQosClass(pod({ limits: { 'nvidia.com/gpu': '1' } }))).toBe('BestEffort');
  });

  it('is Guaranteed only when every container limits cpu and memory at its requests', () => {
    const full = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } };
    expect(podQosClass(pod(full))).toBe('Guaranteed');
    expect(podQosClass(pod({ ...full, requests: { cpu: '500m', memory: '1Gi' } }))).toBe(
      'Burstable',
    );
    expect(podQosClass(pod({ limits: { cpu: '1' } }))).toBe('Burstable');
    expect(
      podQosClass({ containers: [{ resources: full }, { resources: { requests: { cpu: '1' } } }] }),
    ).toBe('Burstable');
  });
});
