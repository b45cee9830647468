#!/usr/bin/env node
// Fails when a package imports a package above it in the layer order, or any package it does not
// declare in its package.json. Run as part of `pnpm lint`; `node check-layers.mjs <dir>` checks another tree.
import { fileURLToPath } from 'node:url';
import { checkLayers } from './layer-rules.mjs';

const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const problems = checkLayers(root);
if (problems.length > 0) {
  console.error(`layer check failed (${problems.length} problem(s)):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('layer check passed');
