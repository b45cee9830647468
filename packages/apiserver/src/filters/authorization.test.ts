import { describe, expect, it } from 'vitest';
import { failure, StatusError } from '../apimachinery/status.ts';
import type { UserInfo } from '../authentication/authenticate.ts';
import type { AuthorizationAttributes } from '../rbac/attributes.ts';
import { fakeExchange, recordingNext } from './__fixtures__/exchange.ts';
import { withAuthorization } from './authorization.ts';

const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

describe('withAuthorization', () => {
  it('classifies the request once, authorizes it with the user beside it, and passes the RequestInfo on', async () => {
    const asked: AuthorizationAttributes[] = [];
    const next = recordingNext();
    const { exchange } = fakeExchange({
      method: 'GET',
      target: '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm',
    });
    exchange.user = bob;
    await withAuthorization({ check: (attributes) => asked.push(attributes) })(next)(exchange);
    expect(asked).toEqual([
      {
        user: bob,
        verb: 'list',
        group: '',
        version: 'v1',
        resource: 'configmaps',
        subresource: '',
        namespace: 'ns',
        name: 'cm',
      },
    ]);
    expect(exchange.info).toMatchObject({ verb: 'list', resource: 'configmaps', name: 'cm' });
    expect(exchange.info).not.toHaveProperty('user');
    expect(next.calls).toEqual([exchange]);
  });

  it('authorizes a path nothing serves before routing could answer 404', async () => {
    const asked: AuthorizationAttributes[] = [];
    const { exchange } = fakeExchange({ method: 'POST', target: '/no/such/path' });
    await withAuthorization({ check: (attributes) => asked.push(attributes) })(recordingNext())(
      exchange,
    );
    expect(asked).toEqual([{ user: exchange.user, verb: 'post', path: '/no/such/path' }]);
  });

  it("stops a denied request with the authorizer's 403, leaving it unclassified", async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange({ target: '/api/v1/secrets' });
    const denial = new StatusError(failure(403, 'Forbidden', 'no'));
    const error = await withAuthorization({
      check: () => {
        throw denial;
      },
    })(next)(exchange).catch((thrown: unknown) => thrown);
    expect(error).toBe(denial);
    expect(exchange.info).toBeUndefined();
    expect(next.calls).toEqual([]);
  });
});
