import { describe, expect, it } from 'vitest';
import type { StatusError } from '../apimachinery/status.ts';
import { anonymousUser, type UserInfo } from '../authentication/authenticate.ts';
import { fakeExchange, recordingNext } from './__fixtures__/exchange.ts';
import { withAuthentication } from './authentication.ts';

const admin: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
const filter = withAuthentication({
  userForToken: (token) => (token === 'secret-token' ? admin : undefined),
});

describe('withAuthentication', () => {
  it('names the user of a known bearer token', async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange({ headers: { Authorization: 'Bearer secret-token' } });
    await filter(next)(exchange);
    expect(exchange.user).toBe(admin);
    expect(next.calls).toEqual([exchange]);
  });

  it("refuses an unknown or malformed bearer token with kube's 401", async () => {
    for (const authorization of ['Bearer other', 'Basic abc']) {
      const next = recordingNext();
      const { exchange } = fakeExchange({ headers: { Authorization: authorization } });
      const error = await filter(next)(exchange).catch((thrown: unknown) => thrown);
      expect((error as StatusError).status).toMatchObject({ code: 401, reason: 'Unauthorized' });
      expect(next.calls).toEqual([]);
    }
  });

  it('names the user of a verified client certificate: CN, then O as groups', async () => {
    const { exchange } = fakeExchange({ certificate: { CN: 'alice', O: ['dev', 'ops'] } });
    await filter(recordingNext())(exchange);
    expect(exchange.user).toEqual({
      name: 'alice',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
  });

  it('lets a request without credentials through as system:anonymous (RBAC decides)', async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange();
    await filter(next)(exchange);
    expect(exchange.user).toBe(anonymousUser);
    expect(next.calls).toHaveLength(1);
  });

  it('does not read the token lookup for a request without a bearer token', async () => {
    let looked = 0;
    const counting = withAuthentication({
      userForToken: () => {
        looked += 1;
        return undefined;
      },
    });
    await counting(recordingNext())(fakeExchange().exchange);
    expect(looked).toBe(0);
  });
});
