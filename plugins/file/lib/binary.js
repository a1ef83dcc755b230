// @ts-check
/** How many leading bytes are inspected for NUL; the same heuristic git and grep use. */
export const SNIFF_BYTES = 8192;

/** True when the buffer's first {@link SNIFF_BYTES} bytes contain a NUL byte. */
export function looksBinary(/** @type {Uint8Array} */ buf) {
  const end = Math.min(buf.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (buf[i] === 0) return true;
  return false;
}

/** Reads only the head of an open file (from its start) to decide whether it is binary. */
export async function isBinaryFile(/** @type {import('node:fs/promises').FileHandle} */ fh) {
  const buf = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
  return looksBinary(buf.subarray(0, bytesRead));
}
