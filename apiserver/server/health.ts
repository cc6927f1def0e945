/**
 * /livez, /readyz and /healthz (deprecated) with upstream's output: `ok` for a healthy terse
 * check, `[+]name ok` lines and `<endpoint> check passed` with `?verbose`, `[-]name failed: reason
 * withheld` and HTTP 500 on failure, `?exclude=name` to skip a check, `/<endpoint>/<name>` for one.
 */

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects with the reason (which is logged, never shown). */
  check(): Promise<void>;
}

export interface HealthResponse {
  status: number;
  body: string;
}

async function run(check: HealthCheck): Promise<string | null> {
  try {
    await check.check();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Answers `/<endpoint>` or `/<endpoint>/<check>`, or undefined when the path is not one of them. */
export async function healthResponse(
  endpoint: string,
  checks: readonly HealthCheck[],
  subPath: string,
  query: URLSearchParams,
): Promise<HealthResponse | undefined> {
  if (subPath) {
    const check = checks.find((c) => c.name === subPath);
    if (!check) return undefined;
    const failure = await run(check);
    return failure === null ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${subPath} check failed\n` };
  }
  const excluded = new Set(query.getAll('exclude').flatMap((e) => e.split(',')));
  const verbose = query.has('verbose');
  const lines: string[] = [];
  let failed = false;
  const results = await Promise.all(checks.map(async (c) => (excluded.has(c.name) ? 'excluded' : await run(c))));
  checks.forEach((c, i) => {
    const result = results[i];
    if (result === 'excluded') lines.push(`[+]${c.name} excluded: ok`);
    else if (result === null) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  });
  const unknown = [...excluded].filter((name) => !checks.some((c) => c.name === name));
  if (failed) return { status: 500, body: `${lines.join('\n')}\n${endpoint} check failed\n` };
  if (!verbose) return { status: 200, body: 'ok' };
  const warning = unknown.length ? `warn: some health checks cannot be excluded: no matches for ${unknown.map((u) => `"${u}"`).join(',')}\n` : '';
  return { status: 200, body: `${lines.join('\n')}\n${warning}${endpoint} check passed\n` };
}
