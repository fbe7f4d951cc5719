import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { presentError, type ErrorBody } from '../lib/errors.js';

/** The operation's JSON as REST would send it; a plain array (CONTRACT §3) as `{items}`, since structuredContent is an object. */
export function toolResult(value: unknown): CallToolResult {
  const text = JSON.stringify(value === undefined ? null : value);
  const json: unknown = JSON.parse(text);
  const structured = Array.isArray(json) ? { items: json } : json !== null && typeof json === 'object' ? json : { value: json };
  return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
}

export type ToolError = CallToolResult & { status: number };

/** A tool error: the §2 body of the error REST would answer, and its status (kept for the replay store, not sent). */
export function toolError(err: unknown): ToolError {
  const { status, body } = presentError(err);
  return errorResult(status, body);
}

export const errorResult = (status: number, body: ErrorBody): ToolError => ({
  status,
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as unknown as Record<string, unknown>,
});

/** What is sent: the result without the status kept beside a tool error. */
export function sent(result: CallToolResult | ToolError): CallToolResult {
  if (!('status' in result)) return result;
  const { status: _status, ...rest } = result;
  return rest;
}

export const statusOf = (result: CallToolResult | ToolError): number =>
  'status' in result && typeof result.status === 'number' ? result.status : 200;
