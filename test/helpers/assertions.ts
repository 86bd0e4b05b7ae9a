import assert from 'node:assert/strict';
import { CapiGitopsError } from '../../src/core/diagnostics.js';

/** The CapiGitopsError a promise rejects with; fails the test on success or another error. */
export async function rejection(promise: Promise<unknown>): Promise<CapiGitopsError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CapiGitopsError, `expected a CapiGitopsError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

/** The CapiGitopsError `fn` throws; fails the test if it returns or throws something else. */
export function throwsDiagnostics(fn: () => unknown): CapiGitopsError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof CapiGitopsError, `expected CapiGitopsError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a CapiGitopsError');
}

/** For assert.throws/rejects: a CapiGitopsError whose message matches, then any extra checks. */
export function failsWith(pattern: RegExp, check?: (error: CapiGitopsError) => void) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CapiGitopsError, String(error));
    assert.match(error.message, pattern);
    check?.(error);
    return true;
  };
}
