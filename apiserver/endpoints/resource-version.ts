/**
 * resourceVersion query parameters as upstream reads them: a uint64 in decimal. Anything else,
 * including a number of 400 digits, is a 400 before any storage is asked.
 */
import { badRequest } from '../../shared/api/errors.ts';

const maxUint64 = 18446744073709551615n;

/** Throws upstream's 400 unless `text` (when given; '0' included) parses as a uint64. */
export function checkResourceVersion(text: string | undefined): void {
  if (!text) return;
  if (!/^\d+$/.test(text) || text.length > 20 || BigInt(text) > maxUint64) throw badRequest(`invalid resource version: ${text}`);
}
