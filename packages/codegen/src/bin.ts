#!/usr/bin/env node
// The lasso-codegen executable (the package's `bin`): runs the command and exits with its code.
import { errorMessage } from '@lasso/core';
import { runCodegen } from './cli.ts';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
runCodegen(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`lasso-codegen: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
