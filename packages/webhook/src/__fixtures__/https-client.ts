// A node:https client for the tests: what kube-apiserver does to call a webhook (POST a JSON review, trust the
// configuration's CA), plus the raw cases a conformant caller never sends.
import https from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test replies are read field by field
  json(): any;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint256: string;
}

export function post(
  url: string,
  body: string | Buffer | object,
  options: { caPem: string; headers?: Record<string, string>; method?: string },
): Promise<Reply> {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return new Promise<Reply>((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: options.method ?? 'POST',
        ca: options.caPem,
        // A fresh connection per request, so each one sees the certificate served at that moment.
        agent: false,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        const fingerprint256 = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json: () => JSON.parse(text),
            fingerprint256,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** An admission.k8s.io/v1 AdmissionReview as kube-apiserver sends it. */
export function admissionReview(request: Record<string, unknown>): object {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      requestKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      requestResource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      name: 'w',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'] },
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'default' },
        spec: { size: 3 },
      },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
      ...request,
    },
  };
}
