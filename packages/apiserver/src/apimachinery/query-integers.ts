// The integer query options of a request (ListOptions' limit and timeoutSeconds, PodLogOptions'
// counts), decoded as kube-apiserver's parameter codec does: Go's strconv.ParseInt, its errors answered as
// a 400 in Go's words.

import { quoteGo } from './name-validation.ts';
import { badRequest } from './status.ts';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * `value` as strconv.ParseInt(value, 10, 64) reads it (an optional sign, decimal digits, nothing else),
 * or Go's error text: `invalid syntax` for anything else (the empty string too), `value out of range`
 * past int64.
 */
export function parseGoInt64(value: string): bigint | string {
  if (!/^[+-]?\d+$/.test(value))
    return `strconv.ParseInt: parsing ${quoteGo(value)}: invalid syntax`;
  const number = BigInt(value);
  if (number < int64Min || number > int64Max) {
    return `strconv.ParseInt: parsing ${quoteGo(value)}: value out of range`;
  }
  return number;
}

/**
 * The integer options `names` of `query`, decoded in that order (the struct's field order, which decides
 * which bad value kube reports first); an absent option is undefined. Throws kube's 400 for the first one
 * that does not parse.
 */
export function integerOptions(
  query: URLSearchParams,
  names: readonly string[],
): Map<string, number | undefined> {
  const decoded = new Map<string, number | undefined>();
  for (const name of names) {
    const text = query.get(name);
    if (text === null) {
      decoded.set(name, undefined);
      continue;
    }
    const parsed = parseGoInt64(text);
    if (typeof parsed === 'string') throw badRequest(parsed);
    decoded.set(name, Number(parsed));
  }
  return decoded;
}
