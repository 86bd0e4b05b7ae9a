/**
 * Go's time.ParseDuration (metav1.Duration), exact to the nanosecond: the manifest stage checks
 * durations with it and the render stage converts them.
 */

const NANOS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const TWO_POW_63 = 1n << 63n;
export const MAX_DURATION = TWO_POW_63 - 1n;
export const MIN_DURATION = -TWO_POW_63;
export const SECOND = 1_000_000_000n;

/** Go's time.ParseDuration, in nanoseconds; undefined where Go returns an error. */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let total = 0n;
  while (s !== '') {
    if (!/^[.0-9]/.test(s)) return undefined;
    const wholeDigits = /^[0-9]*/.exec(s)![0];
    s = s.slice(wholeDigits.length);
    const whole = BigInt(wholeDigits || '0');
    if (whole > TWO_POW_63) return undefined;
    let fraction = { value: 0n, scale: 1 };
    let hasFraction = false;
    if (s.startsWith('.')) {
      const fractionDigits = /^[0-9]*/.exec(s.slice(1))![0];
      s = s.slice(1 + fractionDigits.length);
      hasFraction = fractionDigits.length > 0;
      fraction = leadingFraction(fractionDigits);
    }
    if (wholeDigits === '' && !hasFraction) return undefined;
    const unitText = /^[^.0-9]*/.exec(s)![0];
    s = s.slice(unitText.length);
    const unit = NANOS_PER_UNIT[unitText];
    if (unit === undefined) return undefined;
    if (whole > TWO_POW_63 / unit) return undefined;
    let value = whole * unit;
    if (fraction.value > 0n) {
      // Go does this step in float64 too; the same IEEE operations give the same nanoseconds.
      value += BigInt(Math.trunc(Number(fraction.value) * (Number(unit) / fraction.scale)));
      if (value > TWO_POW_63) return undefined;
    }
    total += value;
    if (total > TWO_POW_63) return undefined;
  }
  if (negative) return -total;
  return total > MAX_DURATION ? undefined : total;
}

/** Go's leadingFraction: digits past int64 precision are dropped, not an error. */
function leadingFraction(digits: string): { value: bigint; scale: number } {
  let value = 0n;
  let scale = 1;
  for (const ch of digits) {
    if (value > MAX_DURATION / 10n) break;
    const next = value * 10n + BigInt(ch.charCodeAt(0) - 48);
    if (next > TWO_POW_63) break;
    value = next;
    scale *= 10;
  }
  return { value, scale };
}
