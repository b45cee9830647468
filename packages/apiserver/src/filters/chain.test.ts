import { describe, expect, it } from 'vitest';
import { fakeExchange } from './__fixtures__/exchange.ts';
import { composeFilters, type Filter } from './chain.ts';

describe('composeFilters', () => {
  it('runs the first filter outermost, then the next, then the handler, and unwinds in reverse', async () => {
    const order: string[] = [];
    const filter =
      (name: string): Filter =>
      (next) =>
      async (exchange) => {
        order.push(`${name} in`);
        await next(exchange);
        order.push(`${name} out`);
      };
    const handler = composeFilters([filter('a'), filter('b')], async () => {
      order.push('handler');
    });
    await handler(fakeExchange().exchange);
    expect(order).toEqual(['a in', 'b in', 'handler', 'b out', 'a out']);
  });

  it('lets a filter answer without calling on', async () => {
    let reached = false;
    const stop: Filter = () => async () => {};
    await composeFilters([stop], async () => {
      reached = true;
    })(fakeExchange().exchange);
    expect(reached).toBe(false);
  });
});
