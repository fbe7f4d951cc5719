import { z } from 'zod';
import type { Actor } from '../lib/scope.js';
import type { Permission } from '../../shared/permissions.js';
import { appRouter } from '../trpc/router.js';
import { OPERATION_DESCRIPTIONS } from '../trpc/openapi-descriptions.js';
import { accessPolicyOf, type AccessPolicy } from '../trpc/procedures.js';
import type { RouteMeta } from '../trpc/init.js';

/** One operation of the app router offered to agents as an MCP tool (CONTRACT §20). */
export type ToolDef = {
  name: string;
  /** the procedure's path in the app router, e.g. `entries.void` */
  path: string;
  write: boolean;
  permission: Permission | null;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; [k: string]: unknown };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint?: boolean };
};

type ProcedureDef = { type: string; meta?: RouteMeta; inputs: z.ZodType[] };

const DESTRUCTIVE_VERB = /^(void|revoke|reject|delete|remove|deactivate|batchReject)/;

export const CONFIRM_FIELD = 'confirm';
const CONFIRM_SCHEMA = {
  type: 'string',
  description:
    'Leave out to preview: the write runs in a transaction that is rolled back, and the answer carries a confirmToken. ' +
    'Call again with the same arguments and confirm: <confirmToken> (valid 10 minutes) to write, once.',
};

function inputSchemaOf(def: ProcedureDef, write: boolean): ToolDef['inputSchema'] {
  const input = def.inputs[0];
  const schema = (input ? z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) : { type: 'object', properties: {} }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  const properties = { ...((schema.properties as Record<string, object> | undefined) ?? {}) };
  if (write) properties[CONFIRM_FIELD] = CONFIRM_SCHEMA;
  return { ...schema, type: 'object', properties };
}

function toolOf(path: string, def: ProcedureDef, policy: AccessPolicy | undefined): ToolDef | null {
  const op = def.meta?.openapi;
  // public operations (login, refresh) are for people with passwords, not for an authenticated agent
  if (!op || op.enabled === false || op.protect === false || !policy || policy.kind === 'public') return null;
  const write = op.method !== 'GET';
  // CONTRACT §20: the operation's summary and description, as openapi.json gives them (its table fills those the meta leaves out)
  const description = [op.summary, op.description ?? OPERATION_DESCRIPTIONS[op.operationId!]].filter(Boolean).join('\n\n');
  return {
    name: op.operationId!,
    path,
    write,
    permission: policy.kind === 'permission' ? policy.permission : null,
    description: write ? `${description}\n\nWrites are previewed first; see the \`confirm\` argument.` : description,
    inputSchema: inputSchemaOf(def, write),
    annotations: {
      title: op.summary ?? op.operationId!,
      readOnlyHint: !write,
      destructiveHint: op.method === 'DELETE' || DESTRUCTIVE_VERB.test(op.operationId!),
      ...(write ? {} : { idempotentHint: true }),
    },
  };
}

let built: ReadonlyMap<string, ToolDef> | undefined;

/** Every tool, by name, built once from the app router (its procedures, their meta and zod inputs). */
export function allTools(): ReadonlyMap<string, ToolDef> {
  if (built) return built;
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;
  const tools = new Map<string, ToolDef>();
  for (const [path, procedure] of Object.entries(procedures)) {
    const tool = toolOf(path, procedure._def, accessPolicyOf(procedure));
    if (tool) tools.set(tool.name, tool);
  }
  return (built = tools);
}

export const mayCall = (actor: Actor, tool: ToolDef): boolean => tool.permission === null || actor.permissions.has(tool.permission);

/** What `tools/list` shows this caller: the operations its permissions allow. */
export const toolsFor = (actor: Actor): ToolDef[] => [...allTools().values()].filter((tool) => mayCall(actor, tool));
