import { clock } from './clock.js';

/** Today's date in UTC as YYYY-MM-DD. */
export const todayUtc = (): string => clock.now().toISOString().slice(0, 10);

export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
