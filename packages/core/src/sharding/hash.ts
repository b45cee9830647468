// The 64-bit FNV-1a hash KEP-5866 ranges are cut from: k8s.io/apimachinery pkg/sharding HashField hashes the
// field's bytes (UTF-8) with hash/fnv New64a. JavaScript numbers have no 64-bit integer arithmetic and BigInt
// allocates per step, so the state is kept in 16-bit limbs (README: ns per hash, measured); the client-side
// filter hashes every object it receives.

// The state is four 16-bit limbs: every product stays below 2^26, so the arithmetic is small-integer
// arithmetic V8 keeps unboxed (32-bit halves need a 41-bit product and a division for the carry, about 4x as
// slow when measured). The prime is 2^40 + 0x1b3: h * prime = h * 0x1b3 + (h << 40).
let resultHi = 0;
let resultLo = 0;

// UTF-8 bytes of one non-ASCII character (at most 4), reused.
const pending = [0, 0, 0, 0];

/**
 * Hash `value` into resultHi/resultLo. Characters are encoded as UTF-8 on the fly (as Go's
 * `[]byte(string)`); a lone surrogate becomes U+FFFD, which is what a JSON decoder hands Go for one.
 */
function hashInto(value: string): void {
  let l0 = 0x2325;
  let l1 = 0x8422;
  let l2 = 0x9ce4;
  let l3 = 0xcbf2;
  const length = value.length;
  for (let index = 0; index < length; index++) {
    let code = value.charCodeAt(index);
    let count = 1;
    if (code < 0x80) {
      pending[0] = code;
    } else if (code < 0x800) {
      pending[0] = 0xc0 | (code >> 6);
      pending[1] = 0x80 | (code & 0x3f);
      count = 2;
    } else {
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = index + 1 < length ? value.charCodeAt(index + 1) : 0;
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          index++;
        } else {
          code = 0xfffd;
        }
      }
      if (code >= 0x10000) {
        pending[0] = 0xf0 | (code >> 18);
        pending[1] = 0x80 | ((code >> 12) & 0x3f);
        pending[2] = 0x80 | ((code >> 6) & 0x3f);
        pending[3] = 0x80 | (code & 0x3f);
        count = 4;
      } else {
        pending[0] = 0xe0 | (code >> 12);
        pending[1] = 0x80 | ((code >> 6) & 0x3f);
        pending[2] = 0x80 | (code & 0x3f);
        count = 3;
      }
    }
    for (let byte = 0; byte < count; byte++) {
      l0 ^= pending[byte]!;
      const t0 = l0 * 0x1b3;
      const t1 = l1 * 0x1b3 + (t0 >>> 16);
      const t2 = l2 * 0x1b3 + (l0 << 8) + (t1 >>> 16);
      const t3 = l3 * 0x1b3 + (l1 << 8) + (t2 >>> 16);
      l0 = t0 & 0xffff;
      l1 = t1 & 0xffff;
      l2 = t2 & 0xffff;
      l3 = t3 & 0xffff;
    }
  }
  resultHi = ((l3 << 16) | l2) >>> 0;
  resultLo = ((l1 << 16) | l0) >>> 0;
}

function hex32(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/**
 * The 64-bit FNV-1a hash of `value`'s UTF-8 bytes as 16 lowercase hex digits without `0x`: what
 * k8s.io/apimachinery's `sharding.HashField` returns, and what a KEP-5866 range bound compares against.
 *
 * @example
 * ```ts
 * import { fnv1a64Hex } from '@lasso/core/sharding';
 *
 * fnv1a64Hex(''); // 'cbf29ce484222325'
 * ```
 */
export function fnv1a64Hex(value: string): string {
  hashInto(value);
  return hex32(resultHi) + hex32(resultLo);
}

/**
 * The 64-bit FNV-1a hash of `value`'s UTF-8 bytes as a bigint in `[0, 2^64)`.
 *
 * @example
 * ```ts
 * import { fnv1a64 } from '@lasso/core/sharding';
 *
 * fnv1a64('a') === 0xaf63dc4c8601ec8cn; // true
 * ```
 */
export function fnv1a64(value: string): bigint {
  hashInto(value);
  return (BigInt(resultHi) << 32n) | BigInt(resultLo);
}

/**
 * The hash as its high and low 32-bit halves, for comparisons that allocate nothing (the range check). The
 * returned array is reused by the next call.
 *
 * @internal
 */
export function fnv1a64Halves(value: string, into: [number, number]): [number, number] {
  hashInto(value);
  into[0] = resultHi;
  into[1] = resultLo;
  return into;
}
