/**
 * Retries the check until it stops throwing, or fails with its last error after `timeoutMs`: for
 * effects that land after the call under test returns (a request's log line, a background job). A
 * check that passes returns at once, so the default is generous: a loaded machine can take seconds.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}
