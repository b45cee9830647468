import { describe, expect, it } from 'vitest';
import { shardHashSource } from './index.ts';

const uid = 'object.metadata.uid' as const;
const namespace = 'object.metadata.namespace' as const;

describe('shardHashSource', () => {
  const owned = {
    metadata: {
      uid: 'child',
      namespace: 'team-a',
      ownerReferences: [
        { uid: 'other-owner', controller: false },
        { uid: 'controller-owner', controller: true },
      ],
    },
  };

  it('hashes a controlled object by its controller owner only with byOwner', () => {
    expect(shardHashSource(owned, uid, { byOwner: true })).toBe('controller-owner');
    expect(shardHashSource(owned, uid)).toBe('child');
    expect(shardHashSource(owned, uid, { byOwner: false })).toBe('child');
  });

  it('uses the object uid when no ownerReference is a controller', () => {
    const object = {
      metadata: {
        uid: 'child',
        ownerReferences: [{ uid: 'owner', controller: false }, { uid: 'x' }],
      },
    };
    expect(shardHashSource(object, uid, { byOwner: true })).toBe('child');
    expect(
      shardHashSource({ metadata: { uid: 'child', ownerReferences: 'bad' } }, uid, {
        byOwner: true,
      }),
    ).toBe('child');
    // A controller reference without a usable uid is no owner to follow.
    expect(
      shardHashSource(
        { metadata: { uid: 'child', ownerReferences: [{ controller: true, uid: '' }, null] } },
        uid,
        {
          byOwner: true,
        },
      ),
    ).toBe('child');
  });

  it('reads a missing uid as the empty string, as the server resolves it', () => {
    expect(shardHashSource({ metadata: {} }, uid)).toBe('');
    expect(shardHashSource({}, uid, { byOwner: true })).toBe('');
    expect(shardHashSource({ metadata: null }, uid)).toBe('');
  });

  it('hashes the namespace key by namespace, owner or not', () => {
    expect(shardHashSource(owned, namespace, { byOwner: true })).toBe('team-a');
    expect(shardHashSource({ metadata: { uid: 'u' } }, namespace)).toBe('');
  });
});
