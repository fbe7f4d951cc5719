import { z } from 'zod/v4';
import { IntId, IsoDate, Timestamp, Uuid } from './common.js';

export const PeriodObject = z.object({
  id: Uuid,
  workspaceId: z.number().int(),
  name: z.string(),
  startDate: IsoDate,
  endDate: IsoDate,
  status: z.enum(['OPEN', 'CLOSED']),
  closedAt: Timestamp.nullable(),
  closedBy: z.string().nullable(),
  createdAt: Timestamp,
});
export const CreatePeriodInput = z
  .object({ workspaceId: IntId, name: z.string().trim().min(1).max(200), startDate: IsoDate, endDate: IsoDate })
  .strict()
  .refine((p) => p.startDate <= p.endDate, { message: 'startDate must not be after endDate', path: ['endDate'] });
export const PeriodIdInput = z.object({ id: Uuid });

export type PeriodObject = z.infer<typeof PeriodObject>;
