/** An inclusive version range; empty when `lo > hi` ("none"). */
export interface Versions {
  readonly lo: number;
  readonly hi: number;
}

/** The highest version a schema can name (int16). */
export const MAX_VERSION = 0x7fff;
export const NO_VERSIONS: Versions = { lo: 1, hi: 0 };

/**
 * Parses `"N"`, `"A-B"`, `"A+"` (A..32767) or `"none"`.
 * @returns null when the text is not one of those forms
 */
export function parseVersions(text: string): Versions | null {
  const t = text.trim();
  if (t === 'none') return NO_VERSIONS;
  let m = /^(\d+)$/.exec(t);
  if (m) return range(Number(m[1]), Number(m[1]));
  m = /^(\d+)\+$/.exec(t);
  if (m) return range(Number(m[1]), MAX_VERSION);
  m = /^(\d+)-(\d+)$/.exec(t);
  if (m) return range(Number(m[1]), Number(m[2]));
  return null;
}

function range(lo: number, hi: number): Versions | null {
  if (lo > MAX_VERSION || hi > MAX_VERSION || lo > hi) return null;
  return { lo, hi };
}

export function isEmpty(v: Versions): boolean {
  return v.lo > v.hi;
}

export function contains(v: Versions, version: number): boolean {
  return version >= v.lo && version <= v.hi;
}

/** True when every version of `inner` is in `outer` (an empty range is inside anything). */
export function isSubset(inner: Versions, outer: Versions): boolean {
  return isEmpty(inner) || (inner.lo >= outer.lo && inner.hi <= outer.hi);
}

export function intersect(a: Versions, b: Versions): Versions {
  const lo = Math.max(a.lo, b.lo);
  const hi = Math.min(a.hi, b.hi);
  return lo > hi ? NO_VERSIONS : { lo, hi };
}

/** `"0-3"`, `"4+"`, `"2"` or `"none"`, as a schema would write it. */
export function formatVersions(v: Versions): string {
  if (isEmpty(v)) return 'none';
  if (v.hi === MAX_VERSION) return `${v.lo}+`;
  if (v.lo === v.hi) return `${v.lo}`;
  return `${v.lo}-${v.hi}`;
}
