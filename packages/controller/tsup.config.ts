import { lassoPackageBuild } from '../../tooling/tsup.shared.ts';

export default lassoPackageBuild(new URL('./package.json', import.meta.url), {
  index: 'src/index.ts',
});
