/**
 * The start-up banner for the person who ran `npm start`: where the service listens and, on the
 * first start, the generated admin password. It goes to stderr, so that stdout carries only the
 * JSON log lines a log collector reads (and a generated secret never lands in collected logs).
 */

export interface BannerFacts {
  /** e.g. http://localhost:3000 */
  base: string;
  /** The embedded database's directory, or undefined when DATABASE_URL is used. */
  embeddedDataDir: string | undefined;
  admin: { created: false } | { created: true; email: string; generatedPassword?: string };
}

/** The banner's lines; a caller may add its own (e.g. another secret shown once) before writing them. */
export function bannerLines(facts: BannerFacts): string[] {
  const { base, admin } = facts;
  const lines = [
    '',
    `  Finance Entries Service is listening on ${base}`,
    `  API docs:     ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Database:     ${facts.embeddedDataDir ? `embedded PostgreSQL in ${facts.embeddedDataDir}` : 'DATABASE_URL'}`,
  ];
  if (admin.created && admin.generatedPassword) {
    lines.push(`  Admin login:  ${admin.email} / ${admin.generatedPassword}   (generated now; shown only once)`);
  } else if (admin.created) {
    lines.push(`  Admin login:  ${admin.email} with ADMIN_PASSWORD`);
  } else {
    lines.push('  Log in with an existing user (the bootstrap admin was created on first start).');
  }
  lines.push(`  Try:          curl -s -X POST ${base}/auth/login -H 'Content-Type: application/json' -d '{"email":"…","password":"…"}'`);
  return lines;
}

export function writeBanner(lines: readonly string[], out: NodeJS.WritableStream = process.stderr): void {
  out.write([...lines, ''].join('\n') + '\n');
}
