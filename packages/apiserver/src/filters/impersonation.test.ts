import { describe, expect, it } from 'vitest';
import { failure, StatusError } from '../apimachinery/status.ts';
import type { UserInfo } from '../authentication/authenticate.ts';
import type { AuthorizationAttributes } from '../rbac/attributes.ts';
import { fakeExchange, recordingNext } from './__fixtures__/exchange.ts';
import { withImpersonation } from './impersonation.ts';

const caller: UserInfo = { name: 'caller', groups: ['system:authenticated'] };

/** An authorizer that records what it was asked and allows all but `denied` resources. */
function authorizer(denied: string[] = []) {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    check(attributes: AuthorizationAttributes) {
      asked.push(attributes);
      if ('resource' in attributes && denied.includes(attributes.resource)) {
        throw new StatusError(
          failure(403, 'Forbidden', `cannot impersonate ${attributes.resource}`),
        );
      }
    },
  };
}

function exchangeWith(headers: Record<string, string | string[]>) {
  const { exchange } = fakeExchange({ headers });
  exchange.user = caller;
  return exchange;
}

describe('withImpersonation', () => {
  it('keeps the authenticated user when nothing is impersonated, without asking the authorizer', async () => {
    const rbac = authorizer();
    const exchange = exchangeWith({});
    await withImpersonation(rbac)(recordingNext())(exchange);
    expect(exchange.user).toBe(caller);
    expect(rbac.asked).toEqual([]);
  });

  it('switches to an impersonated user and groups the caller may impersonate, in kube order', async () => {
    const rbac = authorizer();
    const exchange = exchangeWith({ 'Impersonate-User': 'bob', 'Impersonate-Group': ['g1', 'g2'] });
    await withImpersonation(rbac)(recordingNext())(exchange);
    expect(exchange.user).toEqual({ name: 'bob', groups: ['g1', 'g2', 'system:authenticated'] });
    expect(rbac.asked.map((a) => ('resource' in a ? `${a.resource}/${a.name}` : ''))).toEqual([
      'users/bob',
      'groups/g1',
      'groups/g2',
    ]);
    expect(rbac.asked.every((a) => a.user === caller && a.verb === 'impersonate')).toBe(true);
  });

  it('gives an impersonated service account its service-account groups', async () => {
    const rbac = authorizer();
    const exchange = exchangeWith({ 'Impersonate-User': 'system:serviceaccount:ns1:robot' });
    await withImpersonation(rbac)(recordingNext())(exchange);
    expect(exchange.user).toEqual({
      name: 'system:serviceaccount:ns1:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
    });
    expect(rbac.asked[0]).toMatchObject({
      resource: 'serviceaccounts',
      namespace: 'ns1',
      name: 'robot',
    });
  });

  it("refuses what the authorizer denies with its 403, and doesn't go on", async () => {
    const next = recordingNext();
    const exchange = exchangeWith({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'admins' });
    const error = await withImpersonation(authorizer(['groups']))(next)(exchange).catch(
      (thrown: unknown) => thrown,
    );
    expect((error as StatusError).status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(next.calls).toEqual([]);
    expect(exchange.user).toBe(caller);
  });

  it('answers 400 for groups without a user', async () => {
    const error = await withImpersonation(authorizer())(recordingNext())(
      exchangeWith({ 'Impersonate-Group': 'admins' }),
    ).catch((thrown: unknown) => thrown);
    expect((error as StatusError).status).toMatchObject({
      code: 400,
      message: 'requested impersonation of groups without a user',
    });
  });
});
