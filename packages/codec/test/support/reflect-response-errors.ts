// The reference the generated response-error walks are checked against: a walk by reflection
// over any decoded response, the way the meta layer found errors before the generator emitted
// one walk per response. It visits every object and array, guesses names from common property
// spellings, and so proves nothing about naming; its paths and codes are the ground truth.

/** One non-zero `errorCode` the reflection walk found. */
export interface ReflectedError {
  readonly path: string;
  readonly errorCode: number;
  /** The nearest `name`/`topic`/`topicName` string, inherited by nested objects. */
  readonly topic?: string;
  /** The object's `partitionIndex`/`partition`/`index`/`partitionId` number. */
  readonly partition?: number;
}

function nameOf(node: Record<string, unknown>): string | undefined {
  const v = node.name ?? node.topic ?? node.topicName;
  return typeof v === 'string' ? v : undefined;
}

function partitionOf(node: Record<string, unknown>): number | undefined {
  const v = node.partitionIndex ?? node.partition ?? node.index ?? node.partitionId;
  return typeof v === 'number' ? v : undefined;
}

/** Every non-zero `errorCode` at any depth of `response`, in property order, top level first. */
export function reflectResponseErrors(response: unknown): ReflectedError[] {
  const out: ReflectedError[] = [];
  const walk = (node: unknown, path: string, topic: string | undefined): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i], `${path}[${i}]`, topic);
      return;
    }
    if (typeof node !== 'object' || node === null || Buffer.isBuffer(node)) return;
    const obj = node as Record<string, unknown>;
    const here = nameOf(obj) ?? topic;
    const code = obj.errorCode;
    if (typeof code === 'number' && code !== 0) {
      const partition = partitionOf(obj);
      out.push({
        path,
        errorCode: code,
        ...(here === undefined ? {} : { topic: here }),
        ...(partition === undefined ? {} : { partition }),
      });
    }
    for (const [key, value] of Object.entries(obj)) {
      if (typeof value === 'object' && value !== null && key !== '_unknownTaggedFields') {
        walk(value, path === '' ? key : `${path}.${key}`, here);
      }
    }
  };
  walk(response, '', undefined);
  return out;
}
