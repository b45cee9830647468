// Seeded random schedules of membership chaos against the shard ring's protocol: members started, stopped, killed,
// paused past their Lease (SIGSTOP) and resumed, partitioned from the API server, with watches that lag, answers
// that take time and controllers that drain slowly. After every step and at every claim: no range is owned by two
// members. At the end, healed: every range owned once, as the assignment of the live members says.
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { unavailable } from './__fixtures__/fake-ring-store.ts';
import { type HarnessMember, RingHarness } from './__fixtures__/ring-harness.ts';
import { assignShardRanges } from './assignment.ts';

/** mulberry32: a small seeded PRNG, so a failing seed replays exactly. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface Chaos {
  /** Monotonic time at which a member's pause, partition or lag ends. */
  readonly resumeAt: Map<string, number>;
  readonly healAt: Map<string, number>;
  readonly catchUpAt: Map<string, number>;
  readonly killed: Set<string>;
}

async function schedule(seed: number): Promise<{ harness: RingHarness; log: string[] }> {
  const random = prng(seed);
  const harness = new RingHarness(new FakeClock(), {
    latencyMs: () => (random() < 0.8 ? random() * 200 : random() * 3_000),
  });
  const ids = ['a', 'b', 'c', 'd'];
  const members = ids.map((id) => harness.add(id));
  const chaos: Chaos = {
    resumeAt: new Map(),
    healAt: new Map(),
    catchUpAt: new Map(),
    killed: new Set(),
  };
  const log: string[] = [];
  const pick = <T>(values: T[]): T | undefined => values[Math.floor(random() * values.length)];
  const healthy = (member: HarnessMember): boolean =>
    !chaos.killed.has(member.identity) && !member.process.paused;
  for (const member of members.slice(0, 3)) await member.start();
  await harness.run(5_000);

  for (let round = 0; round < 40; round++) {
    const now = harness.clock.monotonic();
    for (const member of members) {
      if ((chaos.resumeAt.get(member.identity) ?? Number.POSITIVE_INFINITY) <= now) {
        chaos.resumeAt.delete(member.identity);
        member.process.resume();
        log.push(`${now} resume ${member.identity}`);
      }
      if ((chaos.healAt.get(member.identity) ?? Number.POSITIVE_INFINITY) <= now) {
        chaos.healAt.delete(member.identity);
        member.store.fault = undefined;
        log.push(`${now} heal ${member.identity}`);
      }
      if ((chaos.catchUpAt.get(member.identity) ?? Number.POSITIVE_INFINITY) <= now) {
        chaos.catchUpAt.delete(member.identity);
        member.store.view.lag(false);
        log.push(`${now} catch-up ${member.identity}`);
      }
    }
    const action = random();
    const running = members.filter((member) => healthy(member) && member.ring.isRunning());
    const target = pick(running);
    if (action < 0.12 && target !== undefined) {
      const ms = 1_000 + random() * 30_000;
      target.process.pause();
      chaos.resumeAt.set(target.identity, now + ms);
      log.push(`${now} pause ${target.identity} ${Math.round(ms)}`);
    } else if (action < 0.24 && target !== undefined) {
      const ms = 1_000 + random() * 25_000;
      target.store.fault = () => unavailable();
      chaos.healAt.set(target.identity, now + ms);
      log.push(`${now} partition ${target.identity} ${Math.round(ms)}`);
    } else if (action < 0.34 && target !== undefined) {
      const ms = 1_000 + random() * 20_000;
      target.store.view.lag(true);
      chaos.catchUpAt.set(target.identity, now + ms);
      log.push(`${now} lag ${target.identity} ${Math.round(ms)}`);
    } else if (action < 0.42 && target !== undefined && running.length > 1) {
      target.stop.abort();
      log.push(`${now} stop ${target.identity}`);
    } else if (
      action < 0.46 &&
      target !== undefined &&
      chaos.killed.size === 0 &&
      running.length > 2
    ) {
      target.process.kill();
      chaos.killed.add(target.identity);
      log.push(`${now} kill ${target.identity}`);
    } else if (action < 0.6) {
      const idle = pick(members.filter((member) => healthy(member) && !member.ring.isRunning()));
      if (idle !== undefined) {
        await idle.start();
        log.push(`${now} start ${idle.identity}`);
      }
    } else if (action < 0.7 && target !== undefined) {
      target.drainMs = Math.round(random() * 6_000);
      log.push(`${now} drain ${target.identity} ${target.drainMs}`);
    }
    await harness.run(Math.round(random() * 4_000), 200);
  }

  // Heal everything, let stops finish, start every member still alive but stopped, and let the ring settle.
  for (const member of members) {
    if (chaos.killed.has(member.identity)) continue;
    member.process.resume();
    member.store.fault = undefined;
    member.store.view.lag(false);
    member.drainMs = 0;
  }
  await harness.run(10_000, 500);
  for (const member of members) {
    if (chaos.killed.has(member.identity) || member.ring.isRunning()) continue;
    await member.start();
    log.push(`${harness.clock.monotonic()} start ${member.identity}`);
  }
  await harness.run(60_000, 500);
  return { harness, log };
}

describe('shard ring under random membership chaos', () => {
  const seeds = Array.from({ length: 12 }, (_, i) => 1_000 + i * 7_919);
  it.each(seeds)(
    'seed %i: never two owners of a range, and it converges once healed',
    async (seed) => {
      const { harness, log } = await schedule(seed);
      expect(harness.violations, log.join('\n')).toEqual([]);
      const live = [...harness.members.values()]
        .filter((member) => member.ring.isRunning() && !member.process.paused)
        .map((member) => member.identity);
      expect(live.length, log.join('\n')).toBeGreaterThan(0);
      expect(harness.owners(), log.join('\n')).toEqual(assignShardRanges(live, 16));
    },
  );
});
