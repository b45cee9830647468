// kube's CEL extension functions that @bufbuild/cel lacks (k8s.io/apiserver/pkg/cel/library): list
// helpers, regex find/findAll, URLs and quantities; the strings extension comes from @bufbuild/cel/ext.
import { type CelFunc, CelScalar, celFunc, celMethod, isCelList, listType } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { quantityFunctions } from './quantity.ts';

type Comparable = bigint | number | string | boolean;

function compare(left: Comparable, right: Comparable): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function items(list: unknown): Comparable[] {
  return isCelList(list) ? ([...list] as Comparable[]) : [];
}

const dynList = listType(CelScalar.DYN);

function listFunctions(): CelFunc[] {
  return [
    celMethod('isSorted', dynList, [], CelScalar.BOOL, function () {
      const values = items(this);
      return values.every(
        (value, index) => index === 0 || compare(values[index - 1] as Comparable, value) <= 0,
      );
    }),
    celMethod('sum', dynList, [], CelScalar.DYN, function () {
      const values = items(this);
      if (values.length === 0) return 0n;
      return values.reduce((total, value) =>
        typeof total === 'bigint' && typeof value === 'bigint'
          ? total + value
          : Number(total) + Number(value),
      );
    }),
    celMethod('min', dynList, [], CelScalar.DYN, function () {
      const values = items(this);
      if (values.length === 0) throw new Error('min called on empty list');
      return values.reduce((best, value) => (compare(value, best) < 0 ? value : best));
    }),
    celMethod('max', dynList, [], CelScalar.DYN, function () {
      const values = items(this);
      if (values.length === 0) throw new Error('max called on empty list');
      return values.reduce((best, value) => (compare(value, best) > 0 ? value : best));
    }),
    celMethod('indexOf', dynList, [CelScalar.DYN], CelScalar.INT, function (needle) {
      return BigInt(items(this).indexOf(needle as Comparable));
    }),
    celMethod('lastIndexOf', dynList, [CelScalar.DYN], CelScalar.INT, function (needle) {
      return BigInt(items(this).lastIndexOf(needle as Comparable));
    }),
  ];
}

function regexFunctions(): CelFunc[] {
  const findAll = (text: string, pattern: string, limit: number): string[] => {
    if (limit === 0) return [];
    const found = [...text.matchAll(new RegExp(pattern, 'gu'))].map((match) => match[0]);
    return limit < 0 ? found : found.slice(0, limit);
  };
  return [
    celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
      return new RegExp(pattern, 'u').exec(this)?.[0] ?? '';
    }),
    celMethod(
      'findAll',
      CelScalar.STRING,
      [CelScalar.STRING],
      listType(CelScalar.STRING),
      function (pattern) {
        return findAll(this, pattern, -1);
      },
    ),
    celMethod(
      'findAll',
      CelScalar.STRING,
      [CelScalar.STRING, CelScalar.INT],
      listType(CelScalar.STRING),
      function (pattern, limit) {
        return findAll(this, pattern, Number(limit));
      },
    ),
  ];
}

function parseUrl(text: string): URL {
  // kube's url() takes absolute URIs and absolute paths, as Go's url.ParseRequestURI.
  if (text.startsWith('/')) return new URL(text, 'relative:///');
  return new URL(text);
}

function urlFunctions(): CelFunc[] {
  const isUrl = (text: string): boolean => {
    try {
      parseUrl(text);
      return true;
    } catch {
      return false;
    }
  };
  // A URL travels as its text: CEL values here are JSON-shaped, and every accessor re-parses it.
  const accessor = (name: string, read: (url: URL, text: string) => string): CelFunc =>
    celMethod(name, CelScalar.STRING, [], CelScalar.STRING, function () {
      return read(parseUrl(this), this);
    });
  return [
    celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (text) => isUrl(text)),
    celFunc('url', [CelScalar.STRING], CelScalar.STRING, (text) => {
      if (!isUrl(text)) throw new Error(`URL parse error during conversion from string: ${text}`);
      return text;
    }),
    accessor('getScheme', (url, text) =>
      text.startsWith('/') ? '' : url.protocol.replace(/:$/, ''),
    ),
    accessor('getHost', (url, text) => (text.startsWith('/') ? '' : url.host)),
    accessor('getHostname', (url, text) =>
      text.startsWith('/') ? '' : url.hostname.replace(/^\[(.*)\]$/, '$1'),
    ),
    accessor('getPort', (url) => url.port),
    accessor('getEscapedPath', (url) => url.pathname),
  ];
}

/** Every function the built-in server adds to CEL's standard library for validation rules. */
export const kubernetesCelFunctions: readonly CelFunc[] = [
  ...strings,
  ...listFunctions(),
  ...regexFunctions(),
  ...urlFunctions(),
  ...quantityFunctions(),
];
