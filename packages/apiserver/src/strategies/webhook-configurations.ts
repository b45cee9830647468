// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations: the v1 defaults
// (SetDefaults_*Webhook) and the checks of ValidateValidatingWebhookConfiguration that decide whether the
// admission plugins (admission/) can use a configuration at all.
import { isRecord, type Json } from '../apimachinery/objects.ts';
import type { Cause, Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';

/** Fill in the v1 defaults of every webhook of a configuration. */
export function defaultWebhooks(object: KubeObject, mutating: boolean): void {
  if (!Array.isArray(object.webhooks)) return;
  for (const hook of object.webhooks) {
    if (!isRecord(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    if (Array.isArray(hook.rules)) {
      for (const rule of hook.rules) if (isRecord(rule)) rule.scope ??= '*';
    }
    const service = isRecord(hook.clientConfig) ? hook.clientConfig.service : undefined;
    if (isRecord(service)) service.port ??= 443;
  }
}

const qualifiedName = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function validateWebhooks(object: KubeObject, mutating: boolean): Cause[] {
  const causes: Cause[] = [];
  const hooks = Array.isArray(object.webhooks) ? object.webhooks : [];
  const seen = new Set<string>();
  hooks.forEach((hook: unknown, index: number) => {
    const at = `webhooks[${index}]`;
    const entry: Json = isRecord(hook) ? hook : {};
    const name = typeof entry.name === 'string' ? entry.name : '';
    if (name === '') {
      causes.push({ type: 'FieldValueRequired', message: 'Required value', field: `${at}.name` });
    } else if (name.split('.').length < 3 || !qualifiedName.test(name)) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(name)}: should be a domain with at least three segments separated by dots`,
        field: `${at}.name`,
      });
    } else if (seen.has(name)) {
      causes.push({
        type: 'FieldValueDuplicate',
        message: `Duplicate value: ${JSON.stringify(name)}`,
        field: `${at}.name`,
      });
    }
    seen.add(name);
    const versions = Array.isArray(entry.admissionReviewVersions)
      ? entry.admissionReviewVersions
      : [];
    if (versions.length === 0) {
      causes.push({
        type: 'FieldValueRequired',
        message: 'Required value: must specify one of v1, v1beta1',
        field: `${at}.admissionReviewVersions`,
      });
    } else if (!versions.some((version) => version === 'v1' || version === 'v1beta1')) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: []string{${versions.map((v) => JSON.stringify(String(v))).join(', ')}}: must include at least one of v1, v1beta1`,
        field: `${at}.admissionReviewVersions`,
      });
    }
    if (entry.sideEffects === undefined) {
      causes.push({
        type: 'FieldValueRequired',
        message: 'Required value: must specify one of None, NoneOnDryRun',
        field: `${at}.sideEffects`,
      });
    } else if (entry.sideEffects !== 'None' && entry.sideEffects !== 'NoneOnDryRun') {
      causes.push({
        type: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(entry.sideEffects)}: supported values: "None", "NoneOnDryRun"`,
        field: `${at}.sideEffects`,
      });
    }
    const timeout = entry.timeoutSeconds;
    if (typeof timeout === 'number' && (timeout < 1 || timeout > 30)) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${timeout}: the timeout value must be between 1 and 30 seconds`,
        field: `${at}.timeoutSeconds`,
      });
    }
    const client: Json = isRecord(entry.clientConfig) ? entry.clientConfig : {};
    const hasUrl = typeof client.url === 'string';
    if (hasUrl === isRecord(client.service)) {
      causes.push({
        type: 'FieldValueRequired',
        message: 'Required value: exactly one of url or service is required',
        field: `${at}.clientConfig`,
      });
    } else if (hasUrl && !String(client.url).startsWith('https://')) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(client.url)}: 'https' is the only allowed URL scheme`,
        field: `${at}.clientConfig.url`,
      });
    }
    if (mutating && !['Never', 'IfNeeded'].includes(String(entry.reinvocationPolicy))) {
      causes.push({
        type: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(entry.reinvocationPolicy)}: supported values: "IfNeeded", "Never"`,
        field: `${at}.reinvocationPolicy`,
      });
    }
  });
  return causes;
}

function webhookConfigurationStrategy(mutating: boolean): Strategy {
  return {
    ...builtinStrategy,
    topLevelFields: ['webhooks'],
    canonicalize(context, info, object) {
      builtinStrategy.canonicalize.call(this, context, info, object);
      defaultWebhooks(object, mutating);
    },
    validate(_context, _info, object) {
      return validateWebhooks(object, mutating);
    },
  };
}

/** Strategies by `group/resource` of the two webhook configuration kinds. */
export const webhookConfigurationStrategies: Record<string, Strategy> = {
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationStrategy(true),
  'admissionregistration.k8s.io/validatingwebhookconfigurations':
    webhookConfigurationStrategy(false),
};
