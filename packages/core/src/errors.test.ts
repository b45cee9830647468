import { describe, expect, it } from 'vitest';
import { describeError, errorMessage, isLassoError, LassoError, TimeoutError } from './errors.ts';

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function errorWithThrowingMessage(): Error {
  const error = new Error('original');
  Object.defineProperty(error, 'message', {
    get() {
      throw new Error('message getter');
    },
  });
  return error;
}

const throwingTraps = new Proxy(
  {},
  {
    get: () => {
      throw new Error('get trap');
    },
    has: () => {
      throw new Error('has trap');
    },
    getPrototypeOf: () => {
      throw new Error('getPrototypeOf trap');
    },
  },
);

/** Values a handler can throw that break naive formatting (`.message`, `instanceof`, `String()`). */
const hostile = [
  { name: 'null', value: null, message: 'null' },
  { name: 'undefined', value: undefined, message: 'undefined' },
  { name: 'a string', value: 'plain words', message: 'plain words' },
  { name: 'a number', value: 42, message: '42' },
  { name: 'a Symbol', value: Symbol('boom'), message: 'Symbol(boom)' },
  { name: 'a null-prototype object', value: Object.create(null), message: '[object Object]' },
  {
    name: 'an object whose toString throws',
    value: {
      toString() {
        throw new Error('toString');
      },
    },
    message: '[object Object]',
  },
  {
    name: 'an Error whose message getter throws',
    value: errorWithThrowingMessage(),
    message: '[object Error]',
  },
  { name: 'a revoked Proxy', value: revokedProxy(), message: 'unprintable object' },
  { name: 'a Proxy whose traps throw', value: throwingTraps, message: 'unprintable object' },
  {
    name: 'a thenable whose then throws',
    value: {
      // biome-ignore lint/suspicious/noThenProperty: the hostile value under test is a thenable
      then() {
        throw new Error('then');
      },
    },
    message: '[object Object]',
  },
] as const;

describe('errorMessage()', () => {
  it.for(hostile)('never throws for $name', ({ value, message }) => {
    expect(errorMessage(value)).toBe(message);
  });

  it.for([
    { name: 'an Error', value: new TypeError('bad input'), message: 'bad input' },
    {
      name: 'a LassoError',
      value: new TimeoutError('too slow', 5),
      message: 'too slow',
    },
    { name: 'an Error without a message', value: new RangeError(), message: 'RangeError' },
    {
      name: 'an object with a string message',
      value: { message: 'from a plain object' },
      message: 'from a plain object',
    },
  ])('returns the message of $name', ({ value, message }) => {
    expect(errorMessage(value)).toBe(message);
  });
});

describe('describeError()', () => {
  it.for(hostile)('returns plain data and never throws for $name', ({ value, message }) => {
    const description = describeError(value);
    expect(description.message).toBe(message);
    expect(typeof description.name).toBe('string');
    expect(() => JSON.stringify(description)).not.toThrow();
  });

  it('names a thrown non-Error by its kind', () => {
    expect(describeError(null)).toEqual({ name: 'null', message: 'null' });
    expect(describeError('oops')).toEqual({ name: 'string', message: 'oops' });
    expect(describeError(revokedProxy())).toEqual({
      name: 'object',
      message: 'unprintable object',
    });
  });

  it('keeps the name, code, stack and cause chain of an Error', () => {
    const root = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const error = new LassoError('LASSO_TIMEOUT', 'watch failed', { cause: root });
    const description = describeError(error);
    expect(description).toMatchObject({
      name: 'LassoError',
      message: 'watch failed',
      code: 'LASSO_TIMEOUT',
      stack: expect.stringContaining('watch failed'),
      cause: { name: 'Error', message: 'socket hang up', code: 'ECONNRESET' },
    });
  });

  it('stops at a cyclic or deep cause chain', () => {
    const error = new Error('a');
    (error as { cause?: unknown }).cause = error;
    let depth = 0;
    for (let current = describeError(error).cause; current !== undefined; current = current.cause)
      depth++;
    expect(depth).toBeLessThanOrEqual(4);
  });
});

describe('isLassoError()', () => {
  it.for(hostile)('is false and never throws for $name', ({ value }) => {
    expect(isLassoError(value)).toBe(false);
  });

  it('is true for a LassoError and checks its code', () => {
    const error = new TimeoutError('slow', 1);
    expect(isLassoError(error)).toBe(true);
    expect(isLassoError(error, 'LASSO_TIMEOUT')).toBe(true);
    expect(isLassoError(error, 'LASSO_ABORTED')).toBe(false);
  });
});
