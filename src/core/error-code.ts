/** The `code` of a Node system error (`ENOENT`, `EACCES`, …); undefined for anything else thrown. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
