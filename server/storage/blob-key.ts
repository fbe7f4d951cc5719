const SHA256_HEX = /^[0-9a-f]{64}$/;

/** `ab/cd/abcd…`: the storage key of a SHA-256 (two fan-out levels keep directories small). */
export function blobKey(sha256: string): string {
  if (!SHA256_HEX.test(sha256)) throw new Error('not a lower-case SHA-256 hex digest');
  return `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

/** Refuses anything that is not a key made by blobKey, so no path tricks reach a driver. */
export function assertBlobKey(key: string): void {
  const sha = key.slice(6);
  if (!SHA256_HEX.test(sha) || key !== blobKey(sha)) throw new Error('invalid storage key');
}
