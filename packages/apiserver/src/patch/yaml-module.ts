// The YAML parser, loaded on first use: only YAML bodies and server-side apply need it, and importing it
// is a sizeable share of the server's start. The request chain awaits loadYaml() before handing such a
// request over (`endpoints/lazy-modules.ts`); the parsing itself stays synchronous.
import type * as Yaml from 'yaml';

let yaml: typeof Yaml | undefined;
let loading: Promise<void> | undefined;

/** Loads the YAML parser (once per process). */
export function loadYaml(): Promise<void> {
  loading ??= import('yaml').then((module) => {
    yaml = module;
  });
  return loading;
}

/** The loaded YAML parser; throws when {@link loadYaml} has not settled. */
export function yamlModule(): typeof Yaml {
  if (yaml === undefined) throw new Error('a YAML body was reached before loadYaml() settled');
  return yaml;
}
