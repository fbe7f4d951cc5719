import pino, { type DestinationStream } from 'pino';

/**
 * Fields of a database error that carry the values a query was run with: Sequelize's `sql` (with
 * replacements written into it) and `parameters` (bind values), on the error and on the pg error it
 * wraps (`parent`, `original`), and PostgreSQL's `detail` ("Key (email)=(…)"). A value can be a
 * password hash, a token or a sealed secret, so none of them is ever logged.
 */
const QUERY_VALUE_FIELDS = new Set(['sql', 'parameters', 'detail', 'where']);

function withoutQueryValues(value: unknown, depth = 0): unknown {
  if (!value || typeof value !== 'object' || depth > 5) return value;
  if (Array.isArray(value)) return value.map((v) => withoutQueryValues(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!QUERY_VALUE_FIELDS.has(k)) out[k] = withoutQueryValues(v, depth + 1);
  return out;
}

/** pino's error serializer, minus the query values of database errors (and of their causes). */
export const serializeError = (err: unknown): unknown => withoutQueryValues(err instanceof Error ? pino.stdSerializers.err(err) : err);

/** Structured JSON logs. Anything that can carry a secret is redacted by path. */
export function createLogger(level: string, destination?: DestinationStream) {
  return pino(
    {
      level,
      base: { service: 'finance-entries' },
      serializers: { err: serializeError },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers["x-webhook-secret"]',
          'req.headers.cookie',
          '*.password',
          '*.currentPassword',
          '*.credentials',
          '*.apiKey',
          '*.webhookSecret',
          '*.access_token',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
