/** Password hashing with scrypt from node:crypto; the stored form carries its own parameters and salt. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
/** 2^17: 128 MiB of memory per hash (128 · N · r bytes), about 0.2–0.5 s of one core. */
export const SCRYPT_N = 2 ** 17;
const r = 8;
const p = 1;
const LEN = 32;
/** Node's default limit (32 MiB) is below what N = 2^17 needs; the largest N accepted from a stored hash is 2^20. */
const maxmemFor = (n: number, rr: number) => 128 * n * rr + 16 * 1024 * 1024;
const MAX_N = 2 ** 20;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, LEN, { N: SCRYPT_N, r, p, maxmem: maxmemFor(SCRYPT_N, r) });
  return `scrypt$${SCRYPT_N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A hash of a random password, verified against when the e-mail is unknown so that both answers take the same time. */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('base64'));
  return dummy;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) return false;
  const [alg, n, rr, pp, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const N = Number(n);
  const R = Number(rr);
  if (!Number.isInteger(N) || N < 2 || N > MAX_N || !Number.isInteger(R) || R < 1 || R > 32) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N,
    r: R,
    p: Number(pp),
    maxmem: maxmemFor(N, R),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A stored hash made with weaker parameters than today's: rehashed at the next successful sign-in. */
export function needsRehash(stored: string | null | undefined): boolean {
  if (!stored) return false;
  const [alg, n] = stored.split('$');
  return alg !== 'scrypt' || Number(n) < SCRYPT_N;
}

/** A random password that a person can copy from a terminal. */
export function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}
