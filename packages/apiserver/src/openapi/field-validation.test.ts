import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { enforceFieldValidation } from './field-validation.ts';

const info = { group: '', version: 'v1', kind: 'ConfigMap' };
const find = (_gvk: unknown, object: any) => ('bogus' in object ? ['bogus'] : []);

describe('enforceFieldValidation', () => {
  it('refuses unknown fields under Strict with the strict-decoding 400', () => {
    let thrown: unknown;
    try {
      enforceFieldValidation(find, new URLSearchParams('fieldValidation=Strict'), info, {
        bogus: 1,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StatusError);
    expect((thrown as StatusError).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
  });

  it('lets unknown fields through under Warn, Ignore or no directive, and known ones under Strict', () => {
    for (const query of ['fieldValidation=Warn', 'fieldValidation=Ignore', '']) {
      expect(() =>
        enforceFieldValidation(find, new URLSearchParams(query), info, { bogus: 1 }),
      ).not.toThrow();
    }
    expect(() =>
      enforceFieldValidation(find, new URLSearchParams('fieldValidation=Strict'), info, {
        data: {},
      }),
    ).not.toThrow();
  });
});
