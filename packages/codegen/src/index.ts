// Public API of @lasso/codegen: CRDs to TypeScript types (a function, file and cluster readers, the CLI).

export { type CodegenIo, codegenUsage, runCodegen } from './cli.ts';
export { type ListClusterCrdsOptions, listClusterCrds } from './cluster.ts';
export type { SourcedCrd } from './crd.ts';
export { CodegenInputError } from './errors.ts';
export { type GenerateOptions, generateTypes } from './generate.ts';
export { loadCrdFiles, parseCrdDocuments } from './load.ts';
export { generatedHeader } from './render.ts';
