import type { Request, Response } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asPreview } from '../db/database.js';
import { badRequest, forbidden } from '../lib/errors.js';
import type { Actor } from '../lib/scope.js';
import { runVia } from '../lib/via.js';
import { t } from '../trpc/init.js';
import { appRouter } from '../trpc/router.js';
import { argumentsDigest, checkConfirmToken, issueConfirmToken } from './confirm-token.js';
import { runConfirmedOnce } from './confirmed-writes.js';
import { principalOf } from './principal.js';
import { toolError, toolResult, type ToolError } from './results.js';
import { CONFIRM_FIELD, mayCall, type ToolDef } from './tools.js';
import { contextOf } from '../trpc/context.js';

/** The HTTP request a tool call arrived on, and its authenticated caller. */
export type CallScope = { req: Request; res: Response; requestId: string; actor: Actor };

const createCaller = t.createCallerFactory(appRouter);

/**
 * Calls the tool's procedure as REST would: through a tRPC caller on the request's own context, so
 * the procedure builders authenticate the request, check the permission and the scope, and the
 * zod contract validates the arguments. Nothing here decides access.
 */
async function runProcedure(scope: CallScope, tool: ToolDef, input: Record<string, unknown>): Promise<unknown> {
  const caller = createCaller({ ...contextOf('rest', scope.req, scope.res), requestId: scope.requestId });
  let target: unknown = caller;
  for (const segment of tool.path.split('.')) target = (target as Record<string, unknown>)[segment];
  return (target as (input: unknown) => Promise<unknown>)(input);
}

const attempt = async (run: () => Promise<unknown>): Promise<CallToolResult | ToolError> => {
  try {
    return toolResult(await run());
  } catch (err) {
    return toolError(err);
  }
};

/** A write's first step: the operation in rolled-back transactions, and a token to confirm it. */
async function preview(scope: CallScope, tool: ToolDef, input: Record<string, unknown>): Promise<CallToolResult | ToolError> {
  const { settled, halted } = await asPreview(() => runVia('mcp', () => runProcedure(scope, tool, input)));
  if (settled.status === 'rejected' && !halted) return toolError(settled.reason);
  const confirmToken = issueConfirmToken(principalOf(scope.actor), tool.name, input);
  if (halted || settled.status === 'rejected') {
    const notice = `The preview stopped before ${halted}: the outcome is known only once confirmed.`;
    return toolResult({ preview: true, result: null, notice, confirmToken });
  }
  return toolResult({ preview: true, result: settled.value ?? null, confirmToken });
}

function unknownArguments(tool: ToolDef, args: Record<string, unknown>): string[] {
  const known = new Set(Object.keys(tool.inputSchema.properties));
  return Object.keys(args).filter((k) => !known.has(k));
}

/** One `tools/call` (CONTRACT §20): a read runs; a write is previewed, or runs once when confirmed. */
export async function callTool(scope: CallScope, tool: ToolDef, args: Record<string, unknown>): Promise<CallToolResult | ToolError> {
  if (!mayCall(scope.actor, tool)) return toolError(forbidden(`Missing permission ${tool.permission}`));
  const unknown = unknownArguments(tool, args);
  if (unknown.length) return toolError(badRequest(`Unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`));
  if (!tool.write) return attempt(() => runProcedure(scope, tool, args));

  const { [CONFIRM_FIELD]: confirm, ...input } = args;
  if (confirm === undefined) return preview(scope, tool, input);
  if (typeof confirm !== 'string') return toolError(badRequest('confirm must be the confirmToken of a preview'));
  const principal = principalOf(scope.actor);
  const check = checkConfirmToken(confirm, principal, tool.name, input);
  if (!check.ok) return toolError(badRequest(check.reason));
  return runConfirmedOnce(scope.actor, principal, confirm, tool.name, argumentsDigest(input), () =>
    attempt(() => runVia('mcp', () => runProcedure(scope, tool, input))),
  );
}
