import { lassoProject } from '../../tooling/vitest.shared.ts';

export default lassoProject('@lasso/client-node-bridge');
