/**
 * The session endpoints (login, refresh, logout), over REST or tRPC. A 401 from one of them
 * means bad credentials or a session already being ended, never a reason for a forced logout.
 */
const SESSION_ENDPOINT = /^\/(?:auth\/|trpc\/auth\.)(?:login|refresh|logout)\/?$/;

export function isSessionEndpoint(url: string, baseUrl: string): boolean {
  const path = new URL(url, 'http://sdk.invalid').pathname;
  const basePath = new URL(baseUrl, 'http://sdk.invalid').pathname.replace(/\/+$/, '');
  const relative = basePath && path.startsWith(basePath) ? path.slice(basePath.length) : path;
  return SESSION_ENDPOINT.test(relative);
}

export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

export function bearerOf(headers: RequestInit['headers']): string | undefined {
  const value = new Headers(headers).get('authorization');
  const match = value ? /^Bearer (\S+)$/.exec(value.trim()) : null;
  return match?.[1];
}

export function urlOf(input: string | URL | Request): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}
