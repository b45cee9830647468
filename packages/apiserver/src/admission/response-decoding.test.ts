import { describe, expect, it } from 'vitest';
import { decodeWebhookAnswer, goJsonSyntaxError } from './response-decoding.ts';
import { goNetworkError } from './webhook-client.ts';

const kindStruct =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

describe('a webhook answer decoded as kube-apiserver 1.20 decodes it', () => {
  it('words JSON syntax errors as Go encoding/json does', () => {
    expect(goJsonSyntaxError('{"kind":"AdmissionReview","a":[1,2.5e3,true,null]}')).toBeUndefined();
    expect(goJsonSyntaxError('{')).toBe('unexpected end of JSON input');
    expect(goJsonSyntaxError('{"a":')).toBe('unexpected end of JSON input');
    expect(goJsonSyntaxError('{bad}')).toBe(
      "invalid character 'b' looking for beginning of object key string",
    );
    expect(goJsonSyntaxError('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(goJsonSyntaxError('{"a":1 "b"}')).toBe(
      "invalid character '\"' after object key:value pair",
    );
    expect(goJsonSyntaxError('{"a":hello}')).toBe(
      "invalid character 'h' looking for beginning of value",
    );
    expect(goJsonSyntaxError('{"a":tru}')).toBe(
      "invalid character '}' in literal true (expecting 'e')",
    );
    expect(goJsonSyntaxError('{"a":[1 2]}')).toBe("invalid character '2' after array element");
    expect(goJsonSyntaxError('{"a":1.}')).toBe(
      "invalid character '}' after decimal point in numeric literal",
    );
    expect(goJsonSyntaxError('{"a":"\\x"}')).toBe("invalid character 'x' in string escape code");
    expect(goJsonSyntaxError('{"a":"\n"}')).toBe("invalid character '\\n' in string literal");
    expect(goJsonSyntaxError('{} x')).toBe("invalid character 'x' after top-level value");
    expect(goJsonSyntaxError("{'a':1}")).toBe(
      "invalid character '\\'' looking for beginning of object key string",
    );
  });

  it('reads a body not starting with { as YAML, failing as Go fails to unmarshal it', async () => {
    const message = async (text: string): Promise<unknown> => {
      const decoded = await decodeWebhookAnswer(text, 'text/plain');
      return decoded instanceof Error ? decoded.message : decoded;
    };
    expect(await message('this is not a review')).toBe(
      `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${kindStruct}`,
    );
    expect(await message('42')).toContain('cannot unmarshal number into Go value');
    expect(await message('[1]')).toContain('cannot unmarshal array into Go value');
    expect(await message('true')).toContain('cannot unmarshal bool into Go value');
    expect(await message('a: b')).toBe("Object 'Kind' is missing in 'a: b'");
    expect(await message('kind: AdmissionReview')).toEqual({ kind: 'AdmissionReview' });
    expect(await message('')).toBe(
      '0-length response with status code: 200 and content type: text/plain',
    );
    expect(await message('{"kind":')).toBe(
      "couldn't get version/kind; json parse error: unexpected end of JSON input",
    );
  });

  it('words socket and TLS errors as Go net/http and crypto/x509 do', () => {
    const url = new URL('https://127.0.0.1:4443/hook?timeout=1s');
    const coded = (code: string, message = code): Error =>
      Object.assign(new Error(message), { code });
    expect(goNetworkError(coded('ECONNREFUSED'), url)).toBe(
      'dial tcp 127.0.0.1:4443: connect: connection refused',
    );
    expect(goNetworkError(coded('SELF_SIGNED_CERT_IN_CHAIN'), url)).toBe(
      'x509: certificate signed by unknown authority',
    );
    expect(goNetworkError(coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), url)).toBe(
      'x509: certificate signed by unknown authority',
    );
    expect(goNetworkError(coded('ECONNRESET', 'socket hang up'), url)).toBe('EOF');
    expect(goNetworkError(new Error('something else'), url)).toBe('something else');
  });
});
