// Checks that every built @lasso package loads through require() (Node >= 20.19 loads ESM that way)
// and through import, and that both give the same module: ESM-only must not strand CommonJS users.
// Also checks that every exported class keeps its name (error.name and stacks show it; a bundler
// renaming `ApiError` to `_ApiError` breaks both).
const { readdirSync, readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..', '..');
const packages = readdirSync(join(root, 'packages'))
  .map((dir) => {
    const manifestPath = join(root, 'packages', dir, 'package.json');
    // A package may require itself by name through its own exports map (self-reference).
    return {
      ...JSON.parse(readFileSync(manifestPath, 'utf8')),
      selfRequire: createRequire(manifestPath),
    };
  })
  .filter((manifest) => manifest.name.startsWith('@lasso/'));

function isClass(value) {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
}

async function main() {
  const problems = [];
  for (const { name, exports, selfRequire } of packages) {
    for (const subpath of Object.keys(exports).filter((key) => key !== './package.json')) {
      const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
      try {
        const required = selfRequire(specifier);
        const imported = await import(pathToFileURL(selfRequire.resolve(specifier)).href);
        const names = Object.keys(required).sort();
        if (names.length === 0) problems.push(`${specifier}: require() gave no exports`);
        if (names.join() !== Object.keys(imported).sort().join()) {
          problems.push(`${specifier}: require() and import give different exports`);
        }
        for (const [exportName, value] of Object.entries(required)) {
          if (isClass(value) && value.name !== exportName) {
            problems.push(
              `${specifier}: class ${exportName} is named "${value.name}" in the build`,
            );
          }
        }
      } catch (error) {
        problems.push(`${specifier}: ${error.message}`);
      }
    }
  }
  if (problems.length > 0) {
    console.error(`smoke-require failed:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`smoke-require passed (${packages.length} packages)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
