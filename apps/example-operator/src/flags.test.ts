// Unit tests of the command-line flags and their environment variables (flags.ts).
import { describe, expect, it } from 'vitest';
import { FlagError, type OperatorFlags, parseFlags, usage } from './flags.ts';

const defaults: OperatorFlags = {
  kubeconfig: undefined,
  context: undefined,
  namespace: '',
  workers: 2,
  leaderElect: false,
  leaderElectionNamespace: 'default',
  leaderElectionId: 'icecream-operator',
  shardRing: undefined,
  shardNamespace: 'default',
  shardIdentity: undefined,
  metricsAddr: '127.0.0.1:8080',
  healthAddr: '127.0.0.1:8081',
  logLevel: undefined,
  shutdownTimeoutSeconds: 20,
  webhookPort: undefined,
  webhookCertDir: undefined,
  help: false,
};

describe('parseFlags()', () => {
  it('returns the defaults when no flag and no variable is set', () => {
    expect(parseFlags([], {})).toEqual(defaults);
  });

  it('reads every flag when all are given', () => {
    const flags = parseFlags(
      [
        '--kubeconfig',
        '/tmp/kubeconfig',
        '--context',
        'kind',
        '--namespace',
        'shop',
        '--workers',
        '5',
        '--leader-elect',
        '--leader-election-namespace',
        'leases',
        '--leader-election-id',
        'scoops',
        '--metrics-addr',
        ':9090',
        '--health-addr',
        '0.0.0.0:9091',
        '--log-level',
        'debug',
        '--shutdown-timeout',
        '7',
        '--webhook-port',
        '8443',
        '--webhook-cert-dir',
        '/certs',
      ],
      {},
    );
    expect(flags).toEqual({
      kubeconfig: '/tmp/kubeconfig',
      context: 'kind',
      namespace: 'shop',
      workers: 5,
      leaderElect: true,
      leaderElectionNamespace: 'leases',
      leaderElectionId: 'scoops',
      shardRing: undefined,
      shardNamespace: 'shop',
      shardIdentity: undefined,
      metricsAddr: ':9090',
      healthAddr: '0.0.0.0:9091',
      logLevel: 'debug',
      shutdownTimeoutSeconds: 7,
      webhookPort: 8443,
      webhookCertDir: '/certs',
      help: false,
    } satisfies OperatorFlags);
  });

  it.for([
    { name: 'accepts --flag=value', argv: ['--workers=3'], expected: { workers: 3 } },
    { name: 'reads -h as help', argv: ['-h'], expected: { help: true } },
    { name: 'reads --help', argv: ['--help'], expected: { help: true } },
    {
      name: 'turns /metrics off with 0',
      argv: ['--metrics-addr', '0'],
      expected: { metricsAddr: '' },
    },
    {
      name: 'turns /healthz off with an empty value',
      argv: ['--health-addr='],
      expected: { healthAddr: '' },
    },
    {
      name: 'takes port 0 (any free port)',
      argv: ['--metrics-addr', '127.0.0.1:0'],
      expected: { metricsAddr: '127.0.0.1:0' },
    },
    {
      name: 'takes a bracketed IPv6 host',
      argv: ['--health-addr', '[::1]:8081'],
      expected: { healthAddr: '[::1]:8081' },
    },
    {
      name: 'puts the Lease in the watched namespace by default',
      argv: ['--namespace', 'shop'],
      expected: { namespace: 'shop', leaderElectionNamespace: 'shop', shardNamespace: 'shop' },
    },
    {
      name: 'turns sharding on with --shard-ring, its Leases in the watched namespace',
      argv: ['--shard-ring', 'scoops', '--namespace', 'shop', '--shard-identity', 'replica-a'],
      expected: {
        namespace: 'shop',
        leaderElectionNamespace: 'shop',
        shardRing: 'scoops',
        shardNamespace: 'shop',
        shardIdentity: 'replica-a',
      },
    },
    {
      name: 'puts the ring Leases where --shard-namespace says',
      argv: ['--shard-ring=scoops', '--shard-namespace=rings'],
      expected: { shardRing: 'scoops', shardNamespace: 'rings' },
    },
    {
      name: 'accepts the silent log level of LASSO_LOG_LEVEL',
      argv: ['--log-level', 'silent'],
      expected: { logLevel: 'silent' },
    },
  ] as const)('$name', ({ argv, expected }) => {
    expect(parseFlags(argv, {})).toEqual({ ...defaults, ...expected });
  });

  it.for([
    { name: 'LASSO_CONTEXT', env: { LASSO_CONTEXT: 'kind' }, expected: { context: 'kind' } },
    {
      name: 'LASSO_NAMESPACE',
      env: { LASSO_NAMESPACE: 'shop' },
      expected: { namespace: 'shop', leaderElectionNamespace: 'shop', shardNamespace: 'shop' },
    },
    {
      name: 'LASSO_SHARD_RING, LASSO_SHARD_NAMESPACE and LASSO_SHARD_IDENTITY',
      env: {
        LASSO_SHARD_RING: 'scoops',
        LASSO_SHARD_NAMESPACE: 'rings',
        LASSO_SHARD_IDENTITY: 'replica-b',
      },
      expected: { shardRing: 'scoops', shardNamespace: 'rings', shardIdentity: 'replica-b' },
    },
    { name: 'LASSO_WORKERS', env: { LASSO_WORKERS: '4' }, expected: { workers: 4 } },
    {
      name: 'LASSO_LEADER_ELECT=true',
      env: { LASSO_LEADER_ELECT: 'true' },
      expected: { leaderElect: true },
    },
    {
      name: 'LASSO_LEADER_ELECT=1',
      env: { LASSO_LEADER_ELECT: '1' },
      expected: { leaderElect: true },
    },
    {
      name: 'LASSO_LEADER_ELECT=false',
      env: { LASSO_LEADER_ELECT: 'false' },
      expected: { leaderElect: false },
    },
    {
      name: 'LASSO_LEADER_ELECT empty',
      env: { LASSO_LEADER_ELECT: '' },
      expected: { leaderElect: false },
    },
    {
      name: 'LASSO_METRICS_ADDR',
      env: { LASSO_METRICS_ADDR: ':1234' },
      expected: { metricsAddr: ':1234' },
    },
    { name: 'LASSO_HEALTH_ADDR', env: { LASSO_HEALTH_ADDR: '0' }, expected: { healthAddr: '' } },
    { name: 'LASSO_LOG_LEVEL', env: { LASSO_LOG_LEVEL: 'warn' }, expected: { logLevel: 'warn' } },
  ] as const)('reads $name from the environment', ({ env, expected }) => {
    expect(parseFlags([], env)).toEqual({ ...defaults, ...expected });
  });

  it('prefers a flag to its environment variable', () => {
    const flags = parseFlags(['--workers', '3', '--namespace', 'flag', '--log-level', 'error'], {
      LASSO_WORKERS: 'not a number',
      LASSO_NAMESPACE: 'env',
      LASSO_LOG_LEVEL: 'verbose',
    });
    expect(flags).toMatchObject({ workers: 3, namespace: 'flag', logLevel: 'error' });
  });

  it('never reads KUBECONFIG itself (main hands it to loadDefaultConfig)', () => {
    expect(parseFlags([], { KUBECONFIG: '/tmp/kubeconfig' }).kubeconfig).toBeUndefined();
  });

  it.for([
    { name: 'an unknown flag', argv: ['--bogus'], env: {}, names: '--bogus' },
    { name: 'a positional argument', argv: ['extra'], env: {}, names: 'extra' },
    { name: 'a flag without its value', argv: ['--workers'], env: {}, names: '--workers' },
    {
      name: 'a value given to --leader-elect',
      argv: ['--leader-elect=false'],
      env: {},
      names: '--leader-elect',
    },
    { name: 'zero workers', argv: ['--workers', '0'], env: {}, names: '--workers' },
    { name: 'a fractional worker count', argv: ['--workers', '1.5'], env: {}, names: '--workers' },
    { name: 'a negative worker count', argv: ['--workers=-1'], env: {}, names: '--workers' },
    { name: 'a word as worker count', argv: ['--workers', 'two'], env: {}, names: '--workers' },
    {
      name: 'an address without a port',
      argv: ['--metrics-addr', 'localhost'],
      env: {},
      names: '--metrics-addr',
    },
    {
      name: 'a port above 65535',
      argv: ['--health-addr', ':65536'],
      env: {},
      names: '--health-addr',
    },
    {
      name: 'an unknown log level',
      argv: ['--log-level', 'verbose'],
      env: {},
      names: '--log-level',
    },
    { name: 'an empty kubeconfig', argv: ['--kubeconfig='], env: {}, names: '--kubeconfig' },
    { name: 'an empty shard ring', argv: ['--shard-ring='], env: {}, names: '--shard-ring' },
    {
      name: 'sharding with leader election',
      argv: ['--leader-elect'],
      env: { LASSO_SHARD_RING: 'scoops' },
      names: 'LASSO_SHARD_RING',
    },
    {
      name: 'a zero shutdown timeout',
      argv: ['--shutdown-timeout', '0'],
      env: {},
      names: '--shutdown-timeout',
    },
    { name: 'a bad LASSO_WORKERS', argv: [], env: { LASSO_WORKERS: '0' }, names: 'LASSO_WORKERS' },
    {
      name: 'a bad LASSO_LEADER_ELECT',
      argv: [],
      env: { LASSO_LEADER_ELECT: 'yes' },
      names: 'LASSO_LEADER_ELECT',
    },
    {
      name: 'a bad LASSO_METRICS_ADDR',
      argv: [],
      env: { LASSO_METRICS_ADDR: 'nowhere' },
      names: 'LASSO_METRICS_ADDR',
    },
    {
      name: 'a bad LASSO_HEALTH_ADDR',
      argv: [],
      env: { LASSO_HEALTH_ADDR: 'x:99999' },
      names: 'LASSO_HEALTH_ADDR',
    },
    {
      name: 'a bad LASSO_LOG_LEVEL',
      argv: [],
      env: { LASSO_LOG_LEVEL: 'trace' },
      names: 'LASSO_LOG_LEVEL',
    },
    {
      name: 'a webhook port above 65535',
      argv: ['--webhook-port', '70000'],
      env: {},
      names: '--webhook-port',
    },
    {
      name: 'a bad LASSO_WEBHOOK_PORT',
      argv: [],
      env: { LASSO_WEBHOOK_PORT: 'x' },
      names: 'LASSO_WEBHOOK_PORT',
    },
    {
      name: 'an empty webhook cert dir',
      argv: ['--webhook-cert-dir='],
      env: {},
      names: '--webhook-cert-dir',
    },
  ] as const)('throws a FlagError naming it for $name', ({ argv, env, names }) => {
    let thrown: unknown;
    try {
      parseFlags(argv, env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FlagError);
    expect((thrown as FlagError).message).toContain(names);
  });
});

describe('usage', () => {
  it('lists every flag parseFlags accepts', () => {
    for (const flag of [
      '--kubeconfig',
      '--context',
      '--namespace',
      '--workers',
      '--leader-elect',
      '--leader-election-namespace',
      '--leader-election-id',
      '--metrics-addr',
      '--health-addr',
      '--webhook-port',
      '--webhook-cert-dir',
      '--log-level',
      '--shutdown-timeout',
      '--help',
    ]) {
      expect(usage).toContain(flag);
    }
  });
});
