#!/usr/bin/env node
// Fails when a package imports a package above it in the layer order, any package it does not declare
// in its package.json, or another package's files by a relative path. Run as part of `pnpm lint`;
// `node check-layers.mjs <dir>` checks another tree.
import { fileURLToPath } from 'node:url';
import { checkLayers, knownCrossings } from './layer-rules.mjs';

const other = process.argv[2];
// The known crossings are this repository's; another tree has none.
const problems =
  other === undefined
    ? checkLayers(fileURLToPath(new URL('../..', import.meta.url)), knownCrossings)
    : checkLayers(other, new Set());
if (problems.length > 0) {
  console.error(`layer check failed (${problems.length} problem(s)):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('layer check passed');
