/*
 * The periods of a budget in SQL (CONTRACT §25), one wording for the report and the exceeded check. Arguments are
 * SQL expressions: `period` a budgets.period value ('MONTH', 'QUARTER', 'YEAR'), `day` a date.
 */

/** The length of one period. */
export const periodStep = (period: string) =>
  `(CASE ${period} WHEN 'MONTH' THEN interval '1 month' WHEN 'QUARTER' THEN interval '3 months' ELSE interval '1 year' END)`;

/** The first day of the period holding `day`. */
export const periodStart = (period: string, day: string) => `date_trunc(lower(${period}), ${day})::date`;

/** The last day of the period starting on `start`. */
export const periodEnd = (period: string, start: string) => `(${start} + ${periodStep(period)} - interval '1 day')::date`;

/** YYYY-MM, YYYY-Qn or YYYY. */
export const periodLabel = (period: string, start: string) =>
  `(CASE ${period} WHEN 'MONTH' THEN to_char(${start}, 'YYYY-MM') WHEN 'QUARTER' THEN to_char(${start}, 'YYYY-"Q"Q') ELSE to_char(${start}, 'YYYY') END)`;

/** The statuses the reports count (CONTRACT §11). */
export const COUNTED = `('PENDING', 'UNDER_REVIEW', 'COMPLETED')`;
