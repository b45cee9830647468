// kube's CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go) over exact decimals: a
// quantity travels through CEL as a tagged string holding its value in nano-units.
import { type CelFunc, CelScalar, celFunc, celMethod } from '@bufbuild/cel';

const tag = '\u0000quantity:';
const nano = 1_000_000_000n;
const binary: Record<string, bigint> = {
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
};
const decimal: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** The value of a Kubernetes quantity in nano-units (rounded up past nano), or undefined if it is not one. */
export function parseQuantity(text: string): bigint | undefined {
  const match = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(
    text,
  );
  if (match === null) return undefined;
  const [, sign, number, suffix = ''] = match as unknown as [string, string, string, string?];
  const [whole = '', fraction = ''] = number.split('.');
  let value = BigInt(`${whole}${fraction}` || '0') * nano;
  let exponent = -fraction.length;
  if (suffix in binary) value *= binary[suffix] as bigint;
  else if (suffix in decimal) exponent += decimal[suffix] as number;
  else exponent += Number(suffix.slice(1));
  if (exponent >= 0) value *= 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    value = value / divisor + (value % divisor === 0n ? 0n : 1n);
  }
  return sign === '-' ? -value : value;
}

function encode(value: bigint): string {
  return `${tag}${value}`;
}

function decode(text: string): bigint {
  if (text.startsWith(tag)) return BigInt(text.slice(tag.length));
  throw new Error(`not a quantity: ${text}`);
}

function compare(left: bigint, right: bigint): bigint {
  return left < right ? -1n : left > right ? 1n : 0n;
}

/** quantity(), isQuantity() and the Quantity methods kube adds to CEL. */
export function quantityFunctions(): CelFunc[] {
  const string = CelScalar.STRING;
  return [
    celFunc('isQuantity', [string], CelScalar.BOOL, (text) => parseQuantity(text) !== undefined),
    celFunc('quantity', [string], string, (text) => {
      const value = parseQuantity(text);
      if (value === undefined) throw new Error('quantities must match the regular expression');
      return encode(value);
    }),
    celMethod('sign', string, [], CelScalar.INT, function () {
      return compare(decode(this), 0n);
    }),
    celMethod('isInteger', string, [], CelScalar.BOOL, function () {
      return decode(this) % nano === 0n;
    }),
    celMethod('asInteger', string, [], CelScalar.INT, function () {
      const value = decode(this);
      if (value % nano !== 0n) throw new Error('cannot convert value to integer');
      return value / nano;
    }),
    celMethod('asApproximateFloat', string, [], CelScalar.DOUBLE, function () {
      return Number(decode(this)) / 1e9;
    }),
    celMethod('compareTo', string, [string], CelScalar.INT, function (other) {
      return compare(decode(this), decode(other));
    }),
    celMethod('isGreaterThan', string, [string], CelScalar.BOOL, function (other) {
      return decode(this) > decode(other);
    }),
    celMethod('isLessThan', string, [string], CelScalar.BOOL, function (other) {
      return decode(this) < decode(other);
    }),
    celMethod('add', string, [string], string, function (other) {
      return encode(decode(this) + decode(other));
    }),
    celMethod('add', string, [CelScalar.INT], string, function (other) {
      return encode(decode(this) + other * nano);
    }),
    celMethod('sub', string, [string], string, function (other) {
      return encode(decode(this) - decode(other));
    }),
    celMethod('sub', string, [CelScalar.INT], string, function (other) {
      return encode(decode(this) - other * nano);
    }),
  ];
}
