import { createTestLogger } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { badRequest, entityTooLarge, StatusError } from '../apimachinery/status.ts';
import { fakeExchange } from './__fixtures__/exchange.ts';
import { withStatusErrors } from './status-errors.ts';

describe('withStatusErrors', () => {
  it('writes nothing when the chain answers', async () => {
    const { exchange, response } = fakeExchange();
    await withStatusErrors(createTestLogger())(async () => {})(exchange);
    expect(response.status).toBeUndefined();
  });

  it('answers a StatusError with its Status and headers, unlogged', async () => {
    const logger = createTestLogger();
    const { exchange, response } = fakeExchange();
    const error = new StatusError(badRequest('nope').status, { 'Retry-After': '2' });
    await withStatusErrors(logger)(async () => {
      throw error;
    })(exchange);
    expect(response.status).toBe(400);
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json',
      'Retry-After': '2',
    });
    expect(JSON.parse(response.body.toString())).toEqual(error.status);
    expect(logger.entries).toEqual([]);
  });

  it('answers any other failure with a 500 InternalError and logs it with the method and path', async () => {
    const logger = createTestLogger();
    const { exchange, response } = fakeExchange({ method: 'POST', target: '/api/v1/pods?x=1' });
    await withStatusErrors(logger)(async () => {
      throw new Error('boom');
    })(exchange);
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body.toString())).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      code: 500,
    });
    expect(logger.entries).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'request failed',
        attributes: expect.objectContaining({
          method: 'POST',
          path: '/api/v1/pods',
          error: 'boom',
        }),
      }),
    ]);
  });

  it('drains a body refused for its size, so the 413 reaches the client', async () => {
    const { exchange, response, resumed } = fakeExchange({ method: 'POST' });
    await withStatusErrors(createTestLogger())(async () => {
      throw entityTooLarge(10);
    })(exchange);
    expect(response.status).toBe(413);
    expect(resumed()).toBe(true);
  });
});
