/**
 * Whether a text is an age recipient that age (and so sops) can encrypt to: Bech32 (BIP 173, the
 * encoding age uses, filippo.io/age internal/bech32) with a valid checksum, and for an X25519
 * recipient (`age1…`) a 32-byte key. Checked before encrypting, so a mistyped recipient is told at
 * its line instead of failing inside the age library.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    GENERATOR.forEach((g, i) => {
      if ((top >>> i) & 1) checksum ^= g;
    });
  }
  return checksum;
}

/** Why `recipient` is not one, in words for a diagnostic; undefined when it is. */
export function ageRecipientProblem(recipient: string): string | undefined {
  const separator = recipient.lastIndexOf('1');
  const prefix = recipient.slice(0, separator);
  const rest = recipient.slice(separator + 1);
  const wrong = [...rest].find((c) => !CHARSET.includes(c));
  if (wrong !== undefined) return `"${wrong}" is not a character of its encoding (Bech32 has no 1, b, i or o after the prefix)`;
  const words = [...rest].map((c) => CHARSET.indexOf(c));
  const expanded = [...[...prefix].map((c) => c.charCodeAt(0) >> 5), 0, ...[...prefix].map((c) => c.charCodeAt(0) & 31)];
  if (words.length < 6 || polymod([...expanded, ...words]) !== 1) {
    return 'its checksum does not match: a character was mistyped, added or lost';
  }
  const dataBits = (words.length - 6) * 5;
  if (prefix === 'age' && Math.floor(dataBits / 8) !== 32) return `it holds ${Math.floor(dataBits / 8)} bytes, and an X25519 recipient 32`;
  return undefined;
}
