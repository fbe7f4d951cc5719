import { z } from 'zod/v4';

export const IntId = z.coerce.number().int().positive().max(2_147_483_647);
export const BigIntId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const Uuid = z.uuid();
export const Timestamp = z.string().describe('ISO 8601 UTC timestamp');
export const IsoDate = z.iso.date().describe('YYYY-MM-DD');
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code, upper case');
export const Country = z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code, upper case');
export const QueryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const WorkspaceQuery = z.object({ workspaceId: IntId });
export const IdPath = z.object({ id: IntId });
export const UuidPath = z.object({ id: Uuid });
export const Success = z.object({ success: z.literal(true) });

export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
};

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const ErrorBody = z.object({
  message: z.string(),
  code: z.string(),
  issues: z.array(z.unknown()).optional(),
});
