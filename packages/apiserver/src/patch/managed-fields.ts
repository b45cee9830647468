// metadata.managedFields entries: read from an object, written back in kube-apiserver's order and shape.
import {
  type FieldSet,
  type FieldsV1,
  isObject,
  type JsonObject,
  toFieldsV1,
} from './field-set.ts';

/** One `metadata.managedFields` entry as kube-apiserver writes it. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldsV1;
  subresource?: string;
}

// ---- managedFields entries ----

export function readEntries(object: JsonObject | undefined): ManagedFieldsEntry[] {
  const metadata = object?.metadata;
  const list = isObject(metadata) ? metadata.managedFields : undefined;
  if (!Array.isArray(list)) return [];
  const entries: ManagedFieldsEntry[] = [];
  for (const raw of list) {
    if (!isObject(raw) || typeof raw.manager !== 'string') continue;
    const entry: ManagedFieldsEntry = {
      manager: raw.manager,
      operation: raw.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof raw.apiVersion === 'string' ? raw.apiVersion : '',
      time: typeof raw.time === 'string' ? raw.time : '',
      fieldsType: 'FieldsV1',
      fieldsV1: isObject(raw.fieldsV1) ? (structuredClone(raw.fieldsV1) as FieldsV1) : {},
    };
    if (typeof raw.subresource === 'string' && raw.subresource !== '')
      entry.subresource = raw.subresource;
    entries.push(entry);
  }
  return entries;
}

export interface Owner {
  entry: ManagedFieldsEntry;
  set: FieldSet;
}

export const sameOwner = (
  entry: ManagedFieldsEntry,
  manager: string,
  operation: string,
  subresource: string | undefined,
): boolean =>
  entry.manager === manager &&
  entry.operation === operation &&
  (entry.subresource ?? '') === (subresource ?? '');

// kube-apiserver's order: operation, then time, then manager, apiVersion, subresource.
export function writeEntries(object: JsonObject, owners: Owner[]): void {
  const entries = owners
    .filter((owner) => owner.set.size > 0)
    .map(({ entry, set }) => {
      const written: ManagedFieldsEntry = {
        manager: entry.manager,
        operation: entry.operation,
        apiVersion: entry.apiVersion,
        time: entry.time,
        fieldsType: 'FieldsV1',
        fieldsV1: toFieldsV1(set),
      };
      if (entry.subresource !== undefined) written.subresource = entry.subresource;
      return written;
    })
    .sort(
      (p, q) =>
        p.operation.localeCompare(q.operation) ||
        (Date.parse(p.time) || 0) - (Date.parse(q.time) || 0) ||
        compare(p.manager, q.manager) ||
        compare(p.apiVersion, q.apiVersion) ||
        compare(p.subresource ?? '', q.subresource ?? ''),
    );
  const metadata = isObject(object.metadata) ? object.metadata : {};
  object.metadata = metadata;
  if (entries.length === 0) delete metadata.managedFields;
  else metadata.managedFields = entries;
}

export const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
