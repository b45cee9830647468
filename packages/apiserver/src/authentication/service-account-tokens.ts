// The TokenRequest subresource (POST serviceaccounts/{name}/token) and the authenticator of the tokens it
// issues: what kube-apiserver's pkg/registry/core/serviceaccount/storage/token.go and the service-account
// token authenticator do, observably. Tokens are JWT-shaped (readable claims) but signed by nobody.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '@lasso/core';
import { isRecord } from '../apimachinery/objects.ts';
import { badRequest, conflict, invalid, notFound } from '../apimachinery/status.ts';
import type { KubeObject, Store } from '../storage/store.ts';
import type { UserInfo } from './authenticate.ts';

type Json = Record<string, unknown>;

/** The audience tokens get when the request names none (kube-apiserver: its --api-audiences). */
export const defaultTokenAudience = 'https://kubernetes.default.svc.cluster.local';

const tokenRequestInfo = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
/** ValidateTokenRequest's bounds on spec.expirationSeconds. */
const minExpirationSeconds = 10 * 60;
const maxExpirationSeconds = 2 ** 32;
const defaultExpirationSeconds = 60 * 60;

interface ObjectRef {
  key: string;
  name: string;
  uid: string;
}

interface IssuedToken {
  user: UserInfo;
  expiresAtMs: number;
  namespace: string;
  serviceAccount: ObjectRef;
  boundObject: ObjectRef | undefined;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Service-account tokens issued by TokenRequest, valid until they expire or what they are bound to goes. */
export class ServiceAccountTokens {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #issued = new Map<string, IssuedToken>();

  constructor(options: { store: Store; clock: Clock }) {
    this.#store = options.store;
    this.#clock = options.clock;
  }

  /**
   * Answer a TokenRequest for service account `name` in `namespace` (the decoded request body); throws
   * the StatusError kube-apiserver sends for a missing account, a bad binding or a bad duration.
   */
  issue(namespace: string, name: string, request: unknown): Json {
    if (!isRecord(request)) throw badRequest('the body of a TokenRequest must be an object');
    const apiVersion = typeof request.apiVersion === 'string' ? request.apiVersion : '';
    const kind = typeof request.kind === 'string' ? request.kind : '';
    if (
      (kind !== '' && kind !== 'TokenRequest') ||
      (apiVersion !== '' && !/^authentication\.k8s\.io\/v1/.test(apiVersion))
    ) {
      throw badRequest(
        `${kind || 'object'} in version "${apiVersion}" cannot be handled as a TokenRequest: no kind "${kind}" is registered for version "${apiVersion}"`,
      );
    }
    const metadata = isRecord(request.metadata) ? request.metadata : {};
    const spec = isRecord(request.spec) ? { ...request.spec } : {};
    if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) {
      spec.expirationSeconds = defaultExpirationSeconds;
    }
    const expiration = spec.expirationSeconds;
    if (typeof expiration !== 'number' || !Number.isInteger(expiration)) {
      throw badRequest(
        `TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${typeof expiration} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`,
      );
    }
    const givenName = typeof metadata.name === 'string' ? metadata.name : '';
    if (givenName !== '' && givenName !== name) {
      throw invalid(tokenRequestInfo, name, [
        {
          type: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(givenName)}: must match the service account name if specified`,
          field: 'metadata.name',
        },
      ]);
    }
    const givenNamespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    if (givenNamespace !== '' && givenNamespace !== namespace) {
      throw invalid(tokenRequestInfo, name, [
        {
          type: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(givenNamespace)}: must match the service account namespace if specified`,
          field: 'metadata.namespace',
        },
      ]);
    }
    const account = this.#store.get('/serviceaccounts', namespace, name);
    if (account === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
    const accountUid = String((account.metadata as Json).uid);
    // kube validates the duration only after it found the account (a missing one is 404 first).
    const causes: Array<{ type: string; message: string; field: string }> = [];
    if (expiration < minExpirationSeconds) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${expiration}: may not specify a duration less than 10 minutes`,
        field: 'spec.expirationSeconds',
      });
    }
    if (expiration > maxExpirationSeconds) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${expiration}: may not specify a duration larger than 2^32 seconds`,
        field: 'spec.expirationSeconds',
      });
    }
    if (causes.length > 0) throw invalid(tokenRequestInfo, '', causes);
    const audiences =
      Array.isArray(spec.audiences) && spec.audiences.length > 0
        ? spec.audiences.map(String)
        : [defaultTokenAudience];
    spec.audiences = audiences;
    const boundObject = this.#bind(namespace, name, spec.boundObjectRef);
    if (spec.boundObjectRef === undefined) spec.boundObjectRef = null;

    const now = this.#clock.now();
    const issuedAt = Math.floor(now / 1000);
    const expiresAtMs = (issuedAt + expiration) * 1000;
    const claims: Json = {
      aud: audiences,
      exp: issuedAt + expiration,
      iat: issuedAt,
      iss: defaultTokenAudience,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace,
        serviceaccount: { name, uid: accountUid },
        ...(boundObject === undefined
          ? {}
          : {
              [boundObject.key === '/pods' ? 'pod' : 'secret']: {
                name: boundObject.name,
                uid: boundObject.uid,
              },
            }),
      },
      nbf: issuedAt,
      sub: `system:serviceaccount:${namespace}:${name}`,
    };
    const header = { alg: 'RS256', kid: randomBytes(16).toString('base64url') };
    const token = `${base64url(header)}.${base64url(claims)}.${randomBytes(256).toString('base64url')}`;
    this.#prune(now);
    this.#issued.set(token, {
      user: {
        name: `system:serviceaccount:${namespace}:${name}`,
        groups: [
          'system:serviceaccounts',
          `system:serviceaccounts:${namespace}`,
          'system:authenticated',
        ],
      },
      expiresAtMs,
      namespace,
      serviceAccount: { key: '/serviceaccounts', name, uid: accountUid },
      boundObject,
    });
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: seconds(issuedAt * 1000) },
      spec,
      status: { token, expirationTimestamp: seconds(expiresAtMs) },
    };
  }

  /** The service account a token authenticates as, or undefined when it is unknown, expired or revoked. */
  authenticate(token: string): UserInfo | undefined {
    const issued = this.#issued.get(token);
    if (issued === undefined) return undefined;
    if (this.#clock.now() >= issued.expiresAtMs) {
      this.#issued.delete(token);
      return undefined;
    }
    for (const ref of [issued.serviceAccount, issued.boundObject]) {
      if (ref === undefined) continue;
      const live = this.#store.get(ref.key, issued.namespace, ref.name);
      if (live === undefined || String((live.metadata as Json).uid) !== ref.uid) {
        this.#issued.delete(token);
        return undefined;
      }
    }
    return issued.user;
  }

  #bind(namespace: string, account: string, ref: unknown): ObjectRef | undefined {
    if (ref === undefined || ref === null) return undefined;
    if (!isRecord(ref)) throw badRequest('spec.boundObjectRef must be an object');
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    let key: string;
    let resource: string;
    if (apiVersion === 'v1' && kind === 'Pod') {
      key = '/pods';
      resource = 'pods';
    } else if (apiVersion === 'v1' && kind === 'Secret') {
      key = '/secrets';
      resource = 'secrets';
    } else {
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
      throw badRequest(
        `cannot bind token to object of type ${group === '' ? '' : `${group}/`}${version}, Kind=${kind}`,
      );
    }
    const live: KubeObject | undefined = this.#store.get(key, namespace, name);
    if (live === undefined) throw notFound({ group: '', resource }, name);
    const liveMeta = live.metadata as Json;
    if (key === '/pods') {
      const spec = isRecord(live.spec) ? live.spec : {};
      if (spec.serviceAccountName !== account) {
        throw badRequest(
          `cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`,
        );
      }
    }
    const uid = String(liveMeta.uid);
    if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
      throw conflict(
        { group: '', resource: kind },
        name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    return { key, name, uid };
  }

  #prune(now: number): void {
    for (const [token, issued] of this.#issued) {
      if (now >= issued.expiresAtMs) this.#issued.delete(token);
    }
  }
}
