import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { builtinPrinter, humanDuration, labelSelectorText } from './builtin-printers.ts';
import {
  crdColumns,
  createTableWatchTransform,
  customResourcePrinter,
  jsonPathValue,
  printerFor,
  printerForResource,
  type TableRequest,
  tableRequest,
  toTable,
} from './table-builder.ts';

const now = Date.parse('2024-05-01T12:00:00Z');
const kubectlAccept =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const metadataRows: TableRequest = {
  version: 'v1',
  includeObject: 'Metadata',
  mediaType: 'application/json',
};

function configMap(name: string, data: Record<string, string>, created = '2024-05-01T11:59:30Z') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', resourceVersion: '7', creationTimestamp: created },
    data,
  };
}

describe('tableRequest', () => {
  it('reads kubectl get’s Accept header, v1 first', () => {
    expect(tableRequest(kubectlAccept, new URLSearchParams())).toEqual(metadataRows);
    expect(
      tableRequest(
        'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
        new URLSearchParams('includeObject=Object'),
      ),
    ).toEqual({ version: 'v1beta1', includeObject: 'Object', mediaType: 'application/json' });
    expect(
      tableRequest('application/yaml;as=Table;g=meta.k8s.io;v=v1', new URLSearchParams()),
    ).toMatchObject({ mediaType: 'application/yaml' });
  });

  it('answers plain objects when no Table is asked for or a plain clause comes first', () => {
    expect(tableRequest(undefined, new URLSearchParams())).toBeUndefined();
    expect(tableRequest('application/json', new URLSearchParams())).toBeUndefined();
    expect(
      tableRequest(
        'application/json,application/json;as=Table;v=v1;g=meta.k8s.io',
        new URLSearchParams(),
      ),
    ).toBeUndefined();
    // Versions and groups the server does not have are skipped for a later clause.
    expect(
      tableRequest(
        'application/json;as=Table;v=v2;g=meta.k8s.io,application/json',
        new URLSearchParams(),
      ),
    ).toBeUndefined();
    expect(
      tableRequest(
        'application/json;as=Table;v=v1;g=example.com,application/json;as=Table;v=v1;g=meta.k8s.io',
        new URLSearchParams(),
      ),
    ).toEqual(metadataRows);
  });

  it('answers 406 when no clause is servable, listing the media types objects are served in', () => {
    let thrown: unknown;
    try {
      tableRequest('application/json;as=Table;v=v2;g=meta.k8s.io', new URLSearchParams());
    } catch (error) {
      thrown = error;
    }
    expect((thrown as StatusError).status).toMatchObject({
      code: 406,
      reason: 'NotAcceptable',
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });

  it('refuses an unknown includeObject with kube’s 400', () => {
    let thrown: unknown;
    try {
      tableRequest(kubectlAccept, new URLSearchParams('includeObject=Bad'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StatusError);
    expect((thrown as StatusError).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        "Unable to convert to Table as requested: includeObject: Invalid value: \"Bad\": must be 'Metadata', 'Object', 'None', or empty",
    });
  });
});

describe('toTable', () => {
  const printer = printerFor('', 'configmaps', { builtin: true });

  it('prints a ConfigMap list with NAME DATA AGE and PartialObjectMetadata rows', () => {
    const table = toTable(
      {
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '9', continue: 'abc', remainingItemCount: 3 },
        items: [configMap('a', { x: '1' }), configMap('b', { x: '1', y: '2' })],
      },
      printer,
      metadataRows,
      now,
    );
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '9', continue: 'abc', remainingItemCount: 3 },
    });
    expect(
      (table.columnDefinitions as any[]).map((column) => [column.name, column.type, column.format]),
    ).toEqual([
      ['Name', 'string', 'name'],
      ['Data', 'string', ''],
      ['Age', 'string', ''],
    ]);
    expect((table.rows as any[]).map((row) => row.cells)).toEqual([
      ['a', 1, '30s'],
      ['b', 2, '30s'],
    ]);
    expect((table.rows as any[])[0].object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: configMap('a', {}).metadata,
    });
  });

  it('carries the whole object with Object, nothing with None, and one row for one object', () => {
    const object = configMap('a', { x: '1' });
    const whole = toTable(object, printer, { ...metadataRows, includeObject: 'Object' }, now);
    expect(whole.metadata).toEqual({ resourceVersion: '7' });
    expect(whole.rows).toEqual([{ cells: ['a', 1, '30s'], object }]);
    const none = toTable(object, printer, { ...metadataRows, includeObject: 'None' }, now);
    expect(none.rows).toEqual([{ cells: ['a', 1, '30s'], object: null }]);
  });

  it('uses Name and Created At for kinds without a printer (CRDs themselves)', () => {
    const table = toTable(
      configMap('crd', {}, '2024-01-01T00:00:00Z'),
      printerFor('apiextensions.k8s.io', 'customresourcedefinitions', { builtin: true }),
      metadataRows,
      now,
    );
    expect((table.columnDefinitions as any[]).map((column) => [column.name, column.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect((table.rows as any[])[0].cells).toEqual(['crd', '2024-01-01T00:00:00Z']);
  });
});

describe('built-in printers', () => {
  function cells(group: string, resource: string, object: Record<string, unknown>): unknown[] {
    return builtinPrinter(group, resource)!.cells(object, now);
  }
  const created = { name: 'x', creationTimestamp: '2024-05-01T11:00:00Z' };

  it('pods: READY, STATUS from phase, waiting and terminated states, RESTARTS, wide columns', () => {
    const pending = {
      metadata: created,
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: { phase: 'Pending' },
    };
    expect(cells('', 'pods', pending)).toEqual([
      'x',
      '0/2',
      'Pending',
      '0',
      '60m',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
    ]);
    const crashing = {
      metadata: created,
      spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 1, state: { running: {} } },
          {
            name: 'b',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
          },
        ],
      },
    };
    expect(cells('', 'pods', crashing).slice(0, 7)).toEqual([
      'x',
      '1/2',
      'CrashLoopBackOff',
      '4',
      '60m',
      '10.0.0.5',
      'n1',
    ]);
    const initializing = {
      metadata: created,
      spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', state: { terminated: { exitCode: 0 } } },
          { name: 'i2', state: { running: {} } },
        ],
      },
    };
    expect(cells('', 'pods', initializing)[2]).toBe('Init:1/2');
    const deleting = {
      ...pending,
      metadata: { ...created, deletionTimestamp: '2024-05-01T11:59:00Z' },
    };
    expect(cells('', 'pods', deleting)[2]).toBe('Terminating');
    const gated = {
      ...pending,
      spec: { ...pending.spec, readinessGates: [{ conditionType: 'g' }] },
    };
    expect(cells('', 'pods', gated)[8]).toBe('0/1');
  });

  it('deployments, jobs and services', () => {
    const deployment = {
      metadata: created,
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template: {
          spec: {
            containers: [
              { name: 'm', image: 'i:1' },
              { name: 's', image: 'i:2' },
            ],
          },
        },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    expect(cells('apps', 'deployments', deployment)).toEqual([
      'x',
      '2/3',
      3,
      2,
      '60m',
      'm,s',
      'i:1,i:2',
      'app=web,tier in (a,b)',
    ]);
    const job = {
      metadata: created,
      spec: {
        completions: 2,
        selector: { matchLabels: { u: '1' } },
        template: { spec: { containers: [{ name: 'j', image: 'b' }] } },
      },
      status: {
        succeeded: 2,
        startTime: '2024-05-01T11:00:00Z',
        completionTime: '2024-05-01T11:00:42Z',
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    };
    expect(cells('batch', 'jobs', job)).toEqual([
      'x',
      'Complete',
      '2/2',
      '42s',
      '60m',
      'j',
      'b',
      'u=1',
    ]);
    const service = {
      metadata: created,
      spec: {
        type: 'NodePort',
        clusterIP: '10.0.0.1',
        selector: { b: '2', a: '1' },
        ports: [
          { port: 80, nodePort: 30001, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      },
    };
    expect(cells('', 'services', service)).toEqual([
      'x',
      'NodePort',
      '10.0.0.1',
      '<none>',
      '80:30001/TCP,53/UDP',
      '60m',
      'a=1,b=2',
    ]);
    const balancer = {
      metadata: created,
      spec: { type: 'LoadBalancer', clusterIP: '10.0.0.2', ports: [] },
    };
    expect(cells('', 'services', balancer).slice(1, 5)).toEqual([
      'LoadBalancer',
      '10.0.0.2',
      '<pending>',
      '<none>',
    ]);
  });

  it('events: last seen, object, source and count', () => {
    const event = {
      metadata: { name: 'e1', creationTimestamp: '2024-05-01T11:00:00Z' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Started',
      message: ' hello ',
      type: 'Normal',
      count: 3,
      firstTimestamp: '2024-05-01T10:00:00Z',
      lastTimestamp: '2024-05-01T11:58:00Z',
      source: { component: 'kubelet', host: 'n1' },
    };
    expect(cells('', 'events', event)).toEqual([
      '2m',
      'Normal',
      'Started',
      'pod/p',
      '',
      'kubelet, n1',
      'hello',
      '120m',
      3,
      'e1',
    ]);
  });
});

describe('custom resource columns', () => {
  const crd = {
    spec: {
      versions: [
        {
          name: 'v1',
          additionalPrinterColumns: [
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            {
              name: 'Ready',
              type: 'string',
              jsonPath: '.status.conditions[?(@.type=="Ready")].status',
            },
            { name: 'Tags', type: 'string', jsonPath: '.spec.tags', priority: 1 },
            { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
            { name: 'On', type: 'boolean', jsonPath: '.spec.on', description: 'Switched on.' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };

  it('defines Name then the declared columns, with kube’s default description', () => {
    const printer = customResourcePrinter(crdColumns(crd, 'v1'));
    expect(printer.columns.map((column) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Ready', 'string', 0],
      ['Tags', 'string', 1],
      ['Ratio', 'number', 0],
      ['On', 'boolean', 0],
      ['Age', 'date', 0],
    ]);
    expect(printer.columns[1]!.description).toBe(
      'Custom resource definition column (in JSONPath format): .spec.replicas',
    );
    expect(printer.columns[5]!.description).toBe('Switched on.');
  });

  it('evaluates JSONPath, types each cell and leaves missing values null', () => {
    const printer = customResourcePrinter(crdColumns(crd, 'v1'));
    const widget = {
      metadata: { name: 'w', creationTimestamp: '2024-05-01T11:59:00Z' },
      spec: { replicas: 3, tags: ['a', 'b'], ratio: 1.5, on: true },
      status: {
        conditions: [
          { type: 'Other', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
    };
    expect(printer.cells(widget, now)).toEqual(['w', 3, 'True', '[a b]', 1.5, true, '60s']);
    expect(printer.cells({ metadata: { name: 'bare' } }, now)).toEqual([
      'bare',
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    // A value of the wrong type prints nothing rather than something misleading.
    expect(
      printer.cells({ metadata: { name: 'odd' }, spec: { replicas: 'many' } }, now)[1],
    ).toBeNull();
  });

  it('finds a custom resource’s columns through its CRD, and built-in printers by group and resource', () => {
    const names: string[] = [];
    const printer = printerForResource(
      { group: 'example.com', resource: 'widgets', version: 'v1', builtin: false },
      (name) => {
        names.push(name);
        return crd;
      },
    );
    expect(names).toEqual(['widgets.example.com']);
    expect(printer.columns.map((column) => column.name)).toContain('Replicas');
    const pods = printerForResource(
      { group: '', resource: 'pods', version: 'v1', builtin: true },
      () => undefined,
    );
    expect(pods.columns.map((column) => column.name).slice(0, 5)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
    ]);
  });

  it('gives a version without columns the Age column', () => {
    const printer = customResourcePrinter(
      crdColumns({ spec: { versions: [{ name: 'v1' }] } }, 'v1'),
    );
    expect(printer.columns.map((column) => column.name)).toEqual(['Name', 'Age']);
    expect(
      printer.cells({ metadata: { name: 'a', creationTimestamp: '2024-05-01T11:57:00Z' } }, now),
    ).toEqual(['a', '3m']);
  });

  it('reads simple JSONPath forms', () => {
    const object = { a: { 'b.c': [{ d: 1 }, { d: 2 }] } };
    expect(jsonPathValue(object, ".a['b.c'][1].d")).toBe(2);
    expect(jsonPathValue(object, "{.a['b.c'][*].d}")).toBe(1);
    expect(jsonPathValue(object, ".a['b.c'][-1].d")).toBe(2);
    expect(jsonPathValue(object, '.a.missing')).toBeUndefined();
  });
});

describe('createTableWatchTransform', () => {
  it('sends column definitions with the first event only and keeps ERROR events', () => {
    const transform = createTableWatchTransform(
      printerFor('', 'configmaps', { builtin: true }),
      { ...metadataRows, includeObject: 'None' },
      () => now,
    );
    const first = transform({ type: 'ADDED', object: configMap('a', {}) });
    const second = transform({ type: 'DELETED', object: configMap('b', { k: 'v' }) });
    expect(first).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Table', metadata: { resourceVersion: '7' } },
    });
    expect((first.object as any).columnDefinitions).toHaveLength(3);
    expect(second.object).toMatchObject({
      columnDefinitions: null,
      rows: [{ cells: ['b', 1, '30s'], object: null }],
    });
    const error = { type: 'ERROR', object: { kind: 'Status', code: 410 } };
    expect(transform(error)).toBe(error);
    expect(
      transform({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '12' } } }),
    ).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: '12' },
        columnDefinitions: null,
        rows: [],
      },
    });
  });
});

describe('humanDuration and labelSelectorText', () => {
  it('formats ages as kubectl does', () => {
    const s = 1000;
    expect(
      [
        -5 * s,
        -1 * s,
        0,
        119 * s,
        120 * s,
        125 * s,
        600 * s,
        3 * 3600 * s,
        7.5 * 3600 * s,
        30 * 3600 * s,
        (2 * 24 + 5) * 3600 * s,
        10 * 24 * 3600 * s,
        (3 * 365 + 4) * 24 * 3600 * s,
        9 * 365 * 24 * 3600 * s,
      ].map(humanDuration),
    ).toEqual([
      '<invalid>',
      '0s',
      '0s',
      '119s',
      '2m',
      '2m5s',
      '10m',
      '3h',
      '7h30m',
      '30h',
      '2d5h',
      '10d',
      '3y4d',
      '9y',
    ]);
  });

  it('prints selectors sorted by key', () => {
    expect(
      labelSelectorText({
        matchLabels: { z: '1' },
        matchExpressions: [
          { key: 'b', operator: 'Exists' },
          { key: 'a', operator: 'DoesNotExist' },
          { key: 'c', operator: 'NotIn', values: ['y', 'x'] },
        ],
      }),
    ).toBe('!a,b,c notin (x,y),z=1');
    expect(labelSelectorText({})).toBe('');
  });
});

describe('customResourcePrinter with a JSONPath this reader does not support', () => {
  it('prints that column empty and the others as usual, instead of failing the table', () => {
    const printer = customResourcePrinter([
      { name: 'Deep', type: 'string', jsonPath: '..name' },
      { name: 'Slice', type: 'string', jsonPath: '.spec.items[0:2]' },
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
    ]);
    const cells = printer.cells({ metadata: { name: 'a' }, spec: { size: 3, items: ['x'] } }, 0);
    expect(cells).toEqual(['a', null, null, 3]);
  });
});
