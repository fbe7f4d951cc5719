import { Router, type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { authorizeRequest } from '../domains/auth/index.js';
import { AppError, unauthorized } from '../lib/errors.js';
import type { Actor } from '../lib/scope.js';
import { sendError } from '../http/errors.js';
import { runtime } from '../runtime.js';
import { callTool, type CallScope } from './call.js';
import { sent } from './results.js';
import { allTools, toolsFor } from './tools.js';

export const MCP_PATH = '/mcp';

const INSTRUCTIONS =
  'The Finance Entries Service: entries, documents, accounting, banking and reports. Read tools run at once. ' +
  'Write tools answer a preview first (run and rolled back, nothing written) with a confirmToken; call the same tool ' +
  'with the same arguments and confirm: <confirmToken> to write, once.';

/**
 * One for every request's server: left to itself the SDK builds an Ajv instance (its meta-schemas compiled) in each
 * Server's constructor, 0.35-0.5 ms of CPU per request on the bench machine (a confirmed create is two requests).
 * It validates only the answers to elicitation requests, which this server never sends.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** One MCP server per request: stateless (no session to share between instances), bound to the request's caller. */
function serverFor(scope: CallScope): Server {
  const server = new Server(
    { name: 'finance-entries-service', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolsFor(scope.actor).map(({ name, description, inputSchema, annotations }) => ({
      name,
      description,
      inputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = allTools().get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return sent(await callTool(scope, tool, request.params.arguments ?? {}));
  });
  return server;
}

async function handlePost(req: Request, res: Response): Promise<void> {
  let actor: Actor;
  try {
    // the same bearer → actor resolution every route uses; a failure is a 401 before any MCP message
    actor = await authorizeRequest(req);
    // CONTRACT §20: agents act through §19 keys (scoped and revocable), never with a person's session token
    if (actor.kind !== 'API_KEY') throw unauthorized('The MCP server takes an API key (CONTRACT §19), not a session token');
  } catch (err) {
    sendError(res, err);
    return;
  }
  const scope: CallScope = { req, res, actor, requestId: String(res.getHeader('X-Request-Id') ?? '') };
  const server = serverFor(scope);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    runtime().logger.error({ err, requestId: scope.requestId }, 'mcp request failed');
    if (!res.headersSent) sendError(res, err);
  }
}

/** GET (an event stream) and DELETE (ending a session): this server keeps neither, so both are 405 at once. */
function methodNotAllowed(_req: Request, res: Response): void {
  res.set('Allow', 'POST');
  sendError(res, new AppError('METHOD_NOT_SUPPORTED', 'This MCP server keeps no sessions or streams: POST only'));
}

/** CONTRACT §20: the Model Context Protocol's Streamable HTTP transport at /mcp. */
export function mcpRouter(): Router {
  const router = Router();
  router.post(MCP_PATH, handlePost);
  router.get(MCP_PATH, methodNotAllowed);
  router.delete(MCP_PATH, methodNotAllowed);
  return router;
}
