import { timingSafeEqual } from 'node:crypto';

/** Whether two strings are equal, in time independent of where they differ: for comparing a secret or a state a
 * client sent with the one kept. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
