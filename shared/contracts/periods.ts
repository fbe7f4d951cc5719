import { z } from 'zod/v4';
import { IntId, IntIdValue, IsoDate, NAME_MAX, NonBlankText, Text, Timestamp, Uuid, UuidValue } from './common.js';

export const PeriodObject = z.object({
  id: Uuid,
  workspaceId: IntIdValue,
  name: Text(NAME_MAX),
  startDate: IsoDate,
  endDate: IsoDate,
  status: z.enum(['OPEN', 'CLOSED']),
  closedAt: Timestamp.nullable(),
  closedBy: UuidValue.nullable(),
  createdAt: Timestamp,
});
export const CreatePeriodInput = z
  .object({
    workspaceId: IntId,
    name: NonBlankText(NAME_MAX),
    startDate: IsoDate,
    endDate: IsoDate,
  })
  .strict()
  .refine((p) => p.startDate <= p.endDate, { message: 'startDate must not be after endDate', path: ['endDate'] });
export const PeriodIdInput = z.object({ id: Uuid });

export type PeriodObject = z.infer<typeof PeriodObject>;
