import { describe, expect, it } from 'vitest';
import { FaultState, matchesRequest } from './fault-injector.ts';

const hooks = {
  closeWatches: () => {},
  sendBookmarks: () => {},
  expireHistory: () => {},
  restart: async () => {},
};

describe('matchesRequest', () => {
  it.for([
    { name: 'matches everything with an empty match', match: {}, expected: true },
    { name: 'compares methods case-insensitively', match: { method: 'get' }, expected: true },
    { name: 'rejects another method', match: { method: 'POST' }, expected: false },
    { name: 'compares string paths exactly', match: { path: '/api/v1/pods' }, expected: true },
    { name: 'rejects a path prefix', match: { path: '/api/v1' }, expected: false },
    { name: 'tests RegExp paths', match: { path: /pods$/g }, expected: true },
    { name: 'separates watch from non-watch', match: { watch: true }, expected: false },
  ])('$name', ({ match, expected }) => {
    const facts = { method: 'GET', path: '/api/v1/pods', watch: false };
    expect(matchesRequest(match, facts)).toBe(expected);
    expect(matchesRequest(match, facts)).toBe(expected);
  });
});

describe('FaultState', () => {
  const facts = { method: 'GET', path: '/x', watch: false };

  it('consumes failures one request at a time', () => {
    const state = new FaultState(hooks);
    state.failNext(2, { status: 500 });
    expect(state.takeFailure(facts)?.status).toBe(500);
    expect(state.takeFailure(facts)?.status).toBe(500);
    expect(state.takeFailure(facts)).toBeUndefined();
  });

  it('sums latencies of every matching rule and replaces a rule with the same match', () => {
    const state = new FaultState(hooks);
    state.setLatency(10);
    state.setLatency(20, { path: '/x' });
    state.setLatency(30, { path: '/x' });
    expect(state.latencyFor(facts)).toBe(40);
    state.setLatency(0, { path: '/x' });
    expect(state.latencyFor(facts)).toBe(10);
  });

  it('consumes cuts and forgets everything on reset()', () => {
    const state = new FaultState(hooks);
    state.cutNext(1, { afterBytes: 3 });
    expect(state.takeCut(facts)).toBe(3);
    expect(state.takeCut(facts)).toBeUndefined();
    state.cutNext(1, { afterBytes: 3 });
    state.failNext(1, { status: 500 });
    state.setLatency(5);
    state.reset();
    expect(state.takeCut(facts)).toBeUndefined();
    expect(state.takeFailure(facts)).toBeUndefined();
    expect(state.latencyFor(facts)).toBe(0);
  });

  it('rejects a negative downMs for restart()', async () => {
    const state = new FaultState(hooks);
    await expect(state.restart({ downMs: -1 })).rejects.toThrow(RangeError);
  });
});
