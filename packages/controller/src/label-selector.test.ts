// apimachinery's labels.Parse and LabelSelectorAsSelector cases (pkg/labels/selector_test.go), as matchers.
import { describe, expect, it } from 'vitest';
import { compileLabelSelector } from './label-selector.ts';

const labels = { app: 'web', tier: 'front', replicas: '3' };

describe('compileLabelSelector', () => {
  it.for([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app = web , tier = front', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web, db)', true],
    ['app in (db)', false],
    ['app notin (db)', true],
    ['missing notin (db)', true],
    ['app notin (web)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['replicas>2', true],
    ['replicas<3', false],
    ['app>2', false],
    ['missing=', false],
    ['app,tier=front,!legacy', true],
  ] as const)('%s matches: %s', ([selector, expected]) => {
    expect(compileLabelSelector(selector, 'test')(labels)).toBe(expected);
  });

  it('matches an empty value against an empty label', () => {
    expect(compileLabelSelector('blank=', 'test')({ blank: '' })).toBe(true);
    expect(compileLabelSelector('app', 'test')(undefined)).toBe(false);
    expect(compileLabelSelector(undefined, 'test')(undefined)).toBe(true);
  });

  it.for(['app=web,', 'app in web', 'app in (web', 'app ~ web', '=web', 'replicas>x', 'a b'])(
    'refuses %j with a RangeError naming where',
    (selector) => {
      expect(() => compileLabelSelector(selector, 'lister.list')).toThrow(RangeError);
      expect(() => compileLabelSelector(selector, 'lister.list')).toThrow(/lister\.list/);
    },
  );

  it('takes a metav1 LabelSelector', () => {
    const match = compileLabelSelector(
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'back'] },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      'test',
    );
    expect(match(labels)).toBe(true);
    expect(match({ ...labels, legacy: 'yes' })).toBe(false);
    expect(compileLabelSelector({}, 'test')(labels)).toBe(true);
  });

  it('refuses a LabelSelector with a bad operator or values', () => {
    expect(() =>
      compileLabelSelector(
        { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
        't',
      ),
    ).toThrow(RangeError);
    expect(() =>
      compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In' }] }, 't'),
    ).toThrow(/needs values/);
    expect(() =>
      compileLabelSelector(
        { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
        't',
      ),
    ).toThrow(/takes no values/);
    expect(() => compileLabelSelector(42 as never, 't')).toThrow(TypeError);
  });
});
