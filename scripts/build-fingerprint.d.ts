// Types of scripts/build-fingerprint.js, for the tests' global setup (test/helpers/build.ts).
/** Where the fingerprint of the inputs dist/ was built from is kept. */
export const STAMP: string;
/** The SHA-256 (hex) of the build's inputs: src/, console/, package and compiler files. */
export function buildFingerprint(): string;
/** Whether dist/ was built from inputs with this fingerprint (default: now's), and its main outputs are there. */
export function distIsFresh(fingerprint?: string): boolean;
/** `npm run build`, then records `fingerprint`; throws the build's failure. */
export function buildAndRecord(fingerprint: string): void;
