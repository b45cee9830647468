import { lassoPackageBuild } from '../../tooling/tsup.shared.ts';

export default lassoPackageBuild(
  new URL('./package.json', import.meta.url),
  { index: 'src/index.ts', bin: 'src/bin.ts' },
  // The command has no declarations: only the library entry does.
  { dts: { entry: { index: 'src/index.ts' } } },
);
