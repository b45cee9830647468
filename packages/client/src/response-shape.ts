// What the client promises of a 2xx answer: an object for get/create/update/patch, a list whose items are
// objects. client-go's decoder refuses other shapes as it decodes into a typed struct.
import { LassoError } from '@lasso/core';
import { describeRequest, shapeOf } from './transport/response-body.ts';
import type { RestRequest } from './transport/rest-request.ts';
import type { KubeObjectLike, ObjectList } from './types.ts';

/** `answer` as one object (not `null`, not an array), else `LASSO_RESPONSE_INVALID` naming `request`. */
export function checkObject<T>(answer: unknown, request: RestRequest): T {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw unexpectedShape(request, `${shapeOf(answer)}, not an object`);
  }
  return answer as T;
}

/** The error of a 2xx answer of another shape than the call promises. */
function unexpectedShape(request: RestRequest, what: string): LassoError {
  return new LassoError(
    'LASSO_RESPONSE_INVALID',
    `${describeRequest(request)}: the server answered ${what}`,
  );
}

/**
 * `answer` as a list: an object whose `items` is an array of objects (absent `items` and
 * `metadata` filled, as client-go's decoder leaves them empty), else `LASSO_RESPONSE_INVALID`
 * naming the request and what it got.
 */
export function checkList<T extends KubeObjectLike>(
  answer: unknown,
  request: RestRequest,
): ObjectList<T> {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw unexpectedShape(request, `${shapeOf(answer)}, not a list object`);
  }
  const list = answer as ObjectList<T>;
  if (list.items === undefined || list.items === null) list.items = [];
  if (!Array.isArray(list.items)) {
    throw unexpectedShape(request, `a list whose items is ${shapeOf(list.items)}, not an array`);
  }
  for (let index = 0; index < list.items.length; index++) {
    const item: unknown = list.items[index];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw unexpectedShape(
        request,
        `a list whose items[${index}] is ${shapeOf(item)}, not an object`,
      );
    }
  }
  if (typeof list.metadata !== 'object' || list.metadata === null) list.metadata = {};
  return list;
}
