// The string formats apiextensions validates (kube-openapi's strfmt registry as CRDs see it); any other
// format name, and int32/int64/float/double/password, validate nothing, as in kube.
import { isIPv6 } from 'node:net';

const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const uuidPatterns: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
};
const byte = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbPattern = new RegExp(`^rgb\\(\\s*${byte}\\s*,\\s*${byte}\\s*,\\s*${byte}\\s*\\)$`);
const durationUnits = new Set([
  'ns',
  'us',
  'µs',
  'ms',
  's',
  'm',
  'h',
  'd',
  'w',
  'nanosecond',
  'nanoseconds',
  'microsecond',
  'microseconds',
  'millisecond',
  'milliseconds',
  'sec',
  'secs',
  'second',
  'seconds',
  'min',
  'mins',
  'minute',
  'minutes',
  'hr',
  'hrs',
  'hour',
  'hours',
  'day',
  'days',
  'wk',
  'wks',
  'week',
  'weeks',
]);
const goDuration = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;

function isIPv4(value: string): boolean {
  // Go's net.ParseIP: four decimal octets, no leading zeros.
  return /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(value);
}

function isIP(value: string): boolean {
  return isIPv4(value) || (!value.includes('%') && isIPv6(value));
}

function isCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash < 0) return false;
  const address = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (isIPv4(address)) return bits <= 32;
  return !address.includes('%') && isIPv6(address) && bits <= 128;
}

function isMac(value: string): boolean {
  // Go's net.ParseMAC: 6, 8 or 20 octets, colon or hyphen separated, or dotted groups of four digits.
  for (const separator of [':', '-']) {
    const parts = value.split(separator);
    if ([6, 8, 20].includes(parts.length) && parts.every((part) => /^[0-9a-fA-F]{2}$/.test(part))) {
      return true;
    }
  }
  const groups = value.split('.');
  return (
    [3, 4, 10].includes(groups.length) && groups.every((group) => /^[0-9a-fA-F]{4}$/.test(group))
  );
}

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isDateTime(value: string): boolean {
  const match =
    /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$/.exec(
      value,
    );
  if (match === null || !isDate(match[1] as string)) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60) return false;
  const zone = match[6];
  if (zone !== undefined && zone.length === 6) {
    return Number(zone.slice(1, 3)) <= 23 && Number(zone.slice(4)) <= 59;
  }
  return true;
}

function isDuration(value: string): boolean {
  if (goDuration.test(value) || value === '0') return true;
  // strfmt falls back to "<number> <unit>" groups anywhere in the text.
  for (const match of value.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    if (durationUnits.has((match[2] as string).toLowerCase())) return true;
  }
  return false;
}

function isUri(value: string): boolean {
  // Go's url.Parse: a scheme must start with a letter; without one, the first segment may not hold a colon.
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 || code === 0x7f) return false;
  }
  const scheme = /^([^:/?#]*):/.exec(value);
  if (scheme === null) return true;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*$/.test(scheme[1] as string);
}

function isEmail(value: string): boolean {
  // net/mail.ParseAddress: an addr-spec, optionally inside a display name's angle brackets.
  const inner = /^[^<>]*<([^<>]+)>$/.exec(value);
  const address = inner === null ? value : (inner[1] as string);
  return /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+$/.test(address) && !address.includes('..');
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function isIsbn10(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < 10; index++) {
    const char = digits[index] as string;
    sum += (char === 'X' ? 10 : Number(char)) * (10 - index);
  }
  return sum % 11 === 0;
}

function isIsbn13(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < 13; index++) sum += Number(digits[index]) * (index % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

const checks: Record<string, (value: string) => boolean> = {
  bsonobjectid: (value) => /^[0-9a-fA-F]{24}$/.test(value),
  uri: isUri,
  email: isEmail,
  hostname: (value) => value.length <= 255 && hostnamePattern.test(value),
  ipv4: isIPv4,
  ipv6: (value) => value.includes(':') && isIP(value),
  cidr: isCidr,
  mac: isMac,
  ...Object.fromEntries(
    Object.entries(uuidPatterns).map(([name, pattern]) => [
      name,
      (value: string) => pattern.test(value),
    ]),
  ),
  isbn: (value) => isIsbn10(value) || isIsbn13(value),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: (value) => {
    const digits = value.replace(/[\s-]/g, '');
    return /^\d{12,19}$/.test(digits) && luhn(digits);
  },
  ssn: (value) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(value),
  hexcolor: (value) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value),
  rgbcolor: (value) => rgbPattern.test(value),
  byte: (value) =>
    /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(
      value.replace(/[\r\n]/g, ''),
    ),
  date: isDate,
  'date-time': isDateTime,
  datetime: isDateTime,
  duration: isDuration,
};

/** False when `value` is not a valid `format` string; true for a format kube does not check. */
export function matchesFormat(format: string, value: string): boolean {
  const check = checks[format];
  return check === undefined || check(value);
}
