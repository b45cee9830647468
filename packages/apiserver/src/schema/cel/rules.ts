// x-kubernetes-validations: CEL rules compiled once per text and evaluated over a custom object and,
// for transition rules, the object it replaces (apiextensions-apiserver/pkg/apiserver/schema/cel).
import type { CelInput } from '@bufbuild/cel';
import { isRecord } from '../../apimachinery/objects.ts';
import {
  duplicateValue,
  forbidden,
  invalidValue,
  omitValue,
  requiredValue,
  type SchemaCause,
} from '../field-errors.ts';
import { celTypeName, toCel } from './bind.ts';
import type * as CelEngine from './cel-engine.ts';

type Json = Record<string, unknown>;
type Program = CelEngine.Program;

let engine: typeof CelEngine | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the CEL engine (once per process). The request chain awaits it before handing over a request that
 * may carry a rule (`endpoints/lazy-modules.ts`); everything below runs synchronously after that.
 */
export function loadCelEngine(): Promise<void> {
  loading ??= import('./cel-engine.ts').then((module) => {
    engine = module;
  });
  return loading;
}

/** Whether the CEL engine is loaded. */
export function celEngineLoaded(): boolean {
  return engine !== undefined;
}

function celEngine(): typeof CelEngine {
  if (engine === undefined)
    throw new Error('a CEL rule was reached before loadCelEngine() settled');
  return engine;
}

const programs = new Map<string, Program | Error>();

/** The rule compiled (cached by text), or the syntax error kube reports at CRD creation. */
export function compileRule(rule: string): Program | Error {
  let program = programs.get(rule);
  if (program === undefined) {
    program = celEngine().compile(rule);
    programs.set(rule, program);
  }
  return program;
}

/** True when a rule reads `oldSelf` (a transition rule: only evaluated on update, with an old value). */
export function isTransitionRule(rule: string): boolean {
  // Strip string literals so a quoted "oldSelf" does not count.
  return /\boldSelf\b/.test(rule.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, ''));
}

/** The x-kubernetes-validations of a schema node, keeping only entries with a rule. */
export function rulesOf(schema: Json): Json[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules)
    ? rules.filter((rule) => isRecord(rule) && typeof rule.rule === 'string')
    : [];
}

function join(path: string, child: string): string {
  return path === '' ? child : `${path}.${child}`;
}

function withFieldPath(path: string, fieldPath: unknown): string {
  if (typeof fieldPath !== 'string' || fieldPath === '') return path === '' ? '<nil>' : path;
  const relative = fieldPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  return join(path, relative);
}

function failure(
  path: string,
  schema: Json,
  rule: Json,
  value: unknown,
  message: string,
): SchemaCause {
  const field = withFieldPath(path, rule.fieldPath);
  // A failed rule shows the value it failed on, or none for an object or a list (kubernetes#132798 and
  // #133832, 1.35); before, it showed the schema's type (`Invalid value: "object": ...`).
  const shown = schema.type === 'object' || schema.type === 'array' ? omitValue : value;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(field, message);
    case 'FieldValueRequired':
      return requiredValue(field, message);
    case 'FieldValueDuplicate':
      return duplicateValue(field, shown);
    default:
      return invalidValue(field, shown, message);
  }
}

function evaluateNode(
  value: unknown,
  old: unknown,
  schema: Json,
  path: string,
  root: boolean,
  only: 'all' | 'plain' | 'transition',
  causes: SchemaCause[],
): void {
  // kube validates non-null values only; a rule on the parent sees nulls.
  if (value === null || value === undefined) return;
  // Rules inside allOf apply to the same value as the node's own.
  const allOf = Array.isArray(schema.allOf) ? schema.allOf.filter(isRecord) : [];
  const rules = [...rulesOf(schema), ...allOf.flatMap(rulesOf)];
  if (rules.length > 0) {
    const self = toCel(value, schema, root);
    const oldSelf = old === undefined || old === null ? undefined : toCel(old, schema, root);
    for (const rule of rules) {
      const text = rule.rule as string;
      const transition = isTransitionRule(text);
      if (transition ? oldSelf === undefined || only === 'plain' : only === 'transition') continue;
      const program = compileRule(text);
      if (program instanceof Error) continue;
      const bindings: Record<string, CelInput> = { self };
      if (oldSelf !== undefined) bindings.oldSelf = oldSelf;
      const result = program(bindings);
      if (result === true) continue;
      if (result !== false) {
        const field = path === '' ? '<nil>' : path;
        causes.push(invalidValue(field, celTypeName(schema), evaluationError(result, rule)));
        continue;
      }
      causes.push(failure(path, schema, rule, value, messageOf(rule, bindings)));
    }
  }
  if (Array.isArray(value)) {
    if (!isRecord(schema.items)) return;
    const items = schema.items;
    const keys =
      schema['x-kubernetes-list-type'] === 'map' &&
      Array.isArray(schema['x-kubernetes-list-map-keys'])
        ? schema['x-kubernetes-list-map-keys'].map(String)
        : undefined;
    value.forEach((item, index) => {
      // Only map lists correlate an item with its old self (by key); atomic lists and sets do not.
      const previous =
        keys !== undefined && Array.isArray(old)
          ? old.find(
              (candidate) =>
                isRecord(candidate) &&
                isRecord(item) &&
                keys.every((key) => candidate[key] === item[key]),
            )
          : undefined;
      evaluateNode(item, previous, items, `${path}[${index}]`, false, only, causes);
    });
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const additional = isRecord(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  // An atomic map is replaced whole: its fields have no old self.
  const oldRecord = isRecord(old) && schema['x-kubernetes-map-type'] !== 'atomic' ? old : undefined;
  for (const [key, child] of Object.entries(value)) {
    if (root && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
    const childSchema = isRecord(properties[key]) ? (properties[key] as Json) : additional;
    if (childSchema === undefined) continue;
    const childPath = isRecord(properties[key]) ? join(path, key) : `${path}[${key}]`;
    evaluateNode(child, oldRecord?.[key], childSchema, childPath, false, only, causes);
  }
}

// kube names a rule by its message when it has one (ruleErrorString).
function ruleName(rule: Json): string {
  return typeof rule.message === 'string' && rule.message !== ''
    ? rule.message.trim()
    : String(rule.rule).trim();
}

// cel-go's runtime error texts, which kube puts in the message, from @bufbuild/cel's.
function evaluationError(result: unknown, rule: Json): string {
  const text = celEngine().isCelError(result)
    ? result.message
    : `rule returned ${typeof result}, not a bool`;
  if (/^(found no matching overload|unbound function)/.test(text)) {
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleName(rule)}`;
  }
  const cause = text
    .replace(/^field not found: /, 'no such key: ')
    .replace(/^(int|uint) divide by zero$/, 'division by zero')
    .replace(/^(int|uint) modulus by zero$/, 'modulus by zero');
  return `${cause} evaluating rule: ${ruleName(rule)}`;
}

function messageOf(rule: Json, bindings: Record<string, CelInput>): string {
  if (typeof rule.messageExpression === 'string' && rule.messageExpression !== '') {
    const program = compileRule(rule.messageExpression);
    if (!(program instanceof Error)) {
      const message = program(bindings);
      // kube falls back to the message when the expression fails, is empty or spans lines.
      if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) {
        return message.trim();
      }
    }
  }
  if (typeof rule.message === 'string' && rule.message !== '') return rule.message.trim();
  return `failed rule: ${String(rule.rule).trim()}`;
}

/**
 * Field errors of the x-kubernetes-validations rules anywhere in `schema`, evaluated on `object`; with
 * `old` (an update), transition rules (those reading `oldSelf`) run too, on the values that correlate
 * (same property, same map-list key). `only` picks the rules without `oldSelf` (`plain`), with it
 * (`transition`), or both.
 */
export function evaluateRules(
  object: unknown,
  schema: Json,
  old?: unknown,
  only: 'all' | 'plain' | 'transition' = 'all',
): SchemaCause[] {
  const causes: SchemaCause[] = [];
  evaluateNode(object, old, schema, '', true, only, causes);
  return causes;
}
