import { describe, expect, it } from 'vitest';
import { matchesFormat } from './formats.ts';

// Valid and invalid samples per format; the invalid ones were refused by kube-apiserver 1.20.2.
describe('matchesFormat', () => {
  it.for([
    { format: 'byte', valid: ['aGVsbG8=', ''], invalid: ['!!!', 'aGVsbG8'] },
    { format: 'email', valid: ['a@b.c', 'Ann <ann@example.com>'], invalid: ['nope', 'a@@b'] },
    {
      format: 'hostname',
      valid: ['example.com', 'localhost', 'a-b.example'],
      invalid: ['-bad-', 'a.b'],
    },
    {
      format: 'ipv4',
      valid: ['10.0.0.1', '255.255.255.255'],
      invalid: ['1.2.3', '256.1.1.1', '01.2.3.4'],
    },
    { format: 'ipv6', valid: ['::1', 'fe80::1', '::ffff:1.2.3.4'], invalid: ['1.2.3.4', 'zz::1'] },
    { format: 'cidr', valid: ['10.0.0.0/8', 'fd00::/64'], invalid: ['10.0.0.0', '10.0.0.0/33'] },
    {
      format: 'mac',
      valid: ['00:11:22:33:44:55', '00-11-22-33-44-55', '0011.2233.4455'],
      invalid: ['zz'],
    },
    {
      format: 'uuid',
      valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
      invalid: ['nope'],
    },
    {
      format: 'uuid4',
      valid: ['123e4567-e89b-42d3-a456-426614174000'],
      invalid: ['123e4567-e89b-12d3-a456-426614174000'],
    },
    { format: 'uri', valid: ['http://x', '/path', 'mailto:a@b'], invalid: ['::', '1http://x'] },
    { format: 'date', valid: ['2020-02-29'], invalid: ['2020-13-01', '2021-02-29', '20200101'] },
    {
      format: 'date-time',
      valid: ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.123+02:00', '2020-01-01T10:00'],
      invalid: ['yesterday', '2020-01-01', '2020-01-01T25:00:00Z'],
    },
    {
      format: 'duration',
      valid: ['5m', '1h30m', '5 minutes', '3 days'],
      invalid: ['soon', '5 parsecs'],
    },
    { format: 'bsonobjectid', valid: ['507f1f77bcf86cd799439011'], invalid: ['x'] },
    { format: 'ssn', valid: ['123-45-6789'], invalid: ['12'] },
    { format: 'hexcolor', valid: ['#fff', 'a0a0a0'], invalid: ['#ffff'] },
    { format: 'rgbcolor', valid: ['rgb(0, 128, 255)'], invalid: ['rgb(256,0,0)'] },
    { format: 'isbn10', valid: ['0-306-40615-2'], invalid: ['0-306-40615-3'] },
    { format: 'isbn13', valid: ['978-0-306-40615-7'], invalid: ['978-0-306-40615-8'] },
    { format: 'creditcard', valid: ['4111 1111 1111 1111'], invalid: ['4111 1111 1111 1112'] },
    { format: 'int32', valid: ['anything'], invalid: [] },
    { format: 'password', valid: ['anything'], invalid: [] },
  ])('checks $format', ({ format, valid, invalid }) => {
    for (const value of valid) expect(matchesFormat(format, value), value).toBe(true);
    for (const value of invalid) expect(matchesFormat(format, value), value).toBe(false);
  });
});
