import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "MalformedReviewError",
        "WebhookClosedError",
        "WebhookListenError",
        "WebhookTlsError",
        "allow",
        "conversionPath",
        "createConversion",
        "createJsonPatch",
        "createSelfSignedCertificates",
        "createWebhookServer",
        "defaultMaxRequestBytes",
        "deny",
        "escapeJsonPointerToken",
        "isAdmissionVerdict",
        "writeSelfSignedCertificates",
      ]
    `);
  });
});
