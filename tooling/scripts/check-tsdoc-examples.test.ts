// What the TSDoc example check extracts: the ```ts blocks under @example of exported declarations and their
// members, with the source line of their first code line; nothing from non-exported code or outside @example.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import { exampleBlocks } from './check-tsdoc-examples.mjs';

const source = `// header
/**
 * Adds.
 *
 * \`\`\`ts
 * notAnExample();
 * \`\`\`
 *
 * @example
 * \`\`\`ts
 * add(1, 2);
 * \`\`\`
 * @returns the sum
 */
export function add(a: number, b: number): number {
  return a + b;
}

/**
 * @example
 * \`\`\`ts
 * hidden();
 * \`\`\`
 */
function hidden(): void {}

/** A class. */
export class Box {
  /**
   * Opens it.
   *
   * @example
   * \`\`\`ts
   * const box = new Box();
   * box.open();
   * \`\`\`
   */
  open(): void {}
}
`;

describe('exampleBlocks', () => {
  it('finds the @example blocks of exported declarations and their members, with their lines', () => {
    expect(exampleBlocks(source)).toEqual([
      { line: 11, code: 'add(1, 2);' },
      { line: 34, code: 'const box = new Box();\nbox.open();' },
    ]);
  });

  it('finds nothing in a file without exported examples', () => {
    expect(exampleBlocks('/** @example\n * ```ts\n * x();\n * ```\n */\nconst x = 1;\n')).toEqual(
      [],
    );
  });
});
