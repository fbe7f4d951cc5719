import pino from 'pino';

/** Structured JSON logs. Anything that can carry a secret is redacted by path. */
export function createLogger(level: string) {
  return pino({
    level,
    base: { service: 'finance-entries' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-webhook-secret"]',
        'req.headers.cookie',
        '*.password',
        '*.credentials',
        '*.apiKey',
        '*.webhookSecret',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
  });
}
