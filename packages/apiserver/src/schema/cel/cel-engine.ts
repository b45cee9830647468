// The CEL engine (@bufbuild/cel with Kubernetes' library): loaded on first use by rules.ts, since importing
// it costs about as much as the rest of the server together and most servers never see a CEL rule.
import { type CelInput, celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelFunctions } from './library.ts';

/** A compiled rule: evaluates over its bindings (`self`, `oldSelf`). */
export type Program = (bindings: Record<string, CelInput>) => unknown;

const environment = celEnv({ funcs: [...kubernetesCelFunctions] });

/** The rule compiled, or the error its parsing or planning raised. */
export function compile(rule: string): Program | Error {
  try {
    const planned = plan(environment, parse(rule));
    return (bindings) => planned(bindings);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export { isCelError };
