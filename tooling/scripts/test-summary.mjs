#!/usr/bin/env node
// Prints vitest's JSON report as one plain closing line ("N passed, N failed, N skipped") so CI logs
// carry a count that tools outside vitest can read.
import { readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.tmp/vitest-report.json';
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.error(`test summary: cannot read ${path}: ${error.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A file that fails to load fails no test; count it so a broken suite never reads as green.
const failedTests = report.numFailedTests ?? 0;
const failedFiles = report.numFailedTestSuites ?? 0;
const failed = failedTests > 0 ? failedTests : failedFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
// The Node that ran this script is the one vitest ran on: both are `node` from the same PATH (the pnpm bin shim
// of vitest execs the first node on PATH), so a run under tooling/scripts/node-versions.mjs names its version.
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped (Node ${process.version})`);
