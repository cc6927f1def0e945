/**
 * A failed file read worded as Go's os package words it (`open /x: no such file or directory`),
 * which upstream's messages embed; Node's wording (`ENOENT: no such file or directory, open
 * '/x'`) is kept for errors without a known code.
 */
const goErrno: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

export function goFileError(err: unknown, path: string): string {
  const code = err instanceof Error && 'code' in err ? String(err.code) : '';
  // os.ReadFile opens a directory fine and fails on the read.
  if (code === 'EISDIR') return `read ${path}: is a directory`;
  const text = goErrno[code];
  if (text !== undefined) return `open ${path}: ${text}`;
  return err instanceof Error ? err.message : String(err);
}
