import { lassoProject } from '../../tooling/vitest.shared.ts';

export default lassoProject('@lasso-internal/conformance');
