import { describe, expect, it } from 'vitest';
import { datesBetween, validateSchedule } from '../../server/domains/recurring/schedule.js';

/**
 * The recurrence library (`rrule`) against RFC 5545's own examples (§3.8.5.3), with the parts §25 allows: DTSTART is
 * the example's date (our dates are whole UTC days, so its time of day plays no part in these), and the dates
 * listed are the RFC's.
 */
const EXAMPLES: { what: string; start: string; rrule: string; to: string; dates: string[] }[] = [
  {
    what: 'Daily for 10 occurrences',
    start: '1997-09-02',
    rrule: 'FREQ=DAILY;COUNT=10',
    to: '1997-12-31',
    dates: ['02', '03', '04', '05', '06', '07', '08', '09', '10', '11'].map((d) => `1997-09-${d}`),
  },
  {
    what: 'Every 10 days, 5 occurrences',
    start: '1997-09-02',
    rrule: 'FREQ=DAILY;INTERVAL=10;COUNT=5',
    to: '1997-12-31',
    dates: ['1997-09-02', '1997-09-12', '1997-09-22', '1997-10-02', '1997-10-12'],
  },
  {
    what: 'Weekly for 10 occurrences',
    start: '1997-09-02',
    rrule: 'FREQ=WEEKLY;COUNT=10',
    to: '1997-12-31',
    dates: [
      '1997-09-02',
      '1997-09-09',
      '1997-09-16',
      '1997-09-23',
      '1997-09-30',
      '1997-10-07',
      '1997-10-14',
      '1997-10-21',
      '1997-10-28',
      '1997-11-04',
    ],
  },
  {
    what: 'Monthly on the first Friday for 10 occurrences',
    start: '1997-09-05',
    rrule: 'FREQ=MONTHLY;COUNT=10;BYDAY=1FR',
    to: '1998-12-31',
    dates: [
      '1997-09-05',
      '1997-10-03',
      '1997-11-07',
      '1997-12-05',
      '1998-01-02',
      '1998-02-06',
      '1998-03-06',
      '1998-04-03',
      '1998-05-01',
      '1998-06-05',
    ],
  },
  {
    what: 'Monthly on the second-to-last Monday of the month for 6 months',
    start: '1997-09-22',
    rrule: 'FREQ=MONTHLY;COUNT=6;BYDAY=-2MO',
    to: '1998-12-31',
    dates: ['1997-09-22', '1997-10-20', '1997-11-17', '1997-12-22', '1998-01-19', '1998-02-16'],
  },
  {
    what: 'Monthly on the third-to-the-last day of the month',
    start: '1997-09-28',
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=-3',
    to: '1998-02-28',
    dates: ['1997-09-28', '1997-10-29', '1997-11-28', '1997-12-29', '1998-01-29', '1998-02-26'],
  },
  {
    what: 'Monthly on the 2nd and 15th of the month for 10 occurrences',
    start: '1997-09-02',
    rrule: 'FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15',
    to: '1998-12-31',
    dates: [
      '1997-09-02',
      '1997-09-15',
      '1997-10-02',
      '1997-10-15',
      '1997-11-02',
      '1997-11-15',
      '1997-12-02',
      '1997-12-15',
      '1998-01-02',
      '1998-01-15',
    ],
  },
  {
    what: 'The last work day of the month',
    start: '1997-09-30',
    rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    to: '1998-03-31',
    dates: ['1997-09-30', '1997-10-31', '1997-11-28', '1997-12-31', '1998-01-30', '1998-02-27', '1998-03-31'],
  },
  {
    what: 'Yearly in June and July for 10 occurrences',
    start: '1997-06-10',
    rrule: 'FREQ=YEARLY;COUNT=10;BYMONTH=6,7',
    to: '2005-12-31',
    dates: ['1997', '1998', '1999', '2000', '2001'].flatMap((y) => [`${y}-06-10`, `${y}-07-10`]),
  },
  {
    what: 'Every Friday the 13th (DTSTART, not a Friday the 13th, is no occurrence)',
    start: '1997-09-02',
    rrule: 'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
    to: '2000-12-31',
    dates: ['1998-02-13', '1998-03-13', '1998-11-13', '1999-08-13', '2000-10-13'],
  },
  {
    what: 'An invalid date (February 30) is ignored',
    start: '2007-01-15',
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5',
    to: '2007-12-31',
    dates: ['2007-01-15', '2007-01-30', '2007-02-15', '2007-03-15', '2007-03-30'],
  },
];

describe('RRULE: the rrule package against RFC 5545 §3.8.5.3', () => {
  for (const ex of EXAMPLES) {
    it(ex.what, () => {
      expect(() => validateSchedule(ex.rrule, ex.start)).not.toThrow(); // allowed, and not taken for a rule that never occurs
      expect(datesBetween(ex.rrule, { startDate: ex.start, endDate: null }, ex.start, ex.to)).toEqual(ex.dates);
    });
  }

  it('endDate and the range bound the dates, inclusive', () => {
    const w = { startDate: '2026-01-01', endDate: '2026-03-01' };
    expect(datesBetween('FREQ=MONTHLY', w, '2026-01-01', '2026-12-31')).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(datesBetween('FREQ=MONTHLY', w, '2026-02-01', '2026-02-01')).toEqual(['2026-02-01']);
    expect(datesBetween('FREQ=MONTHLY;UNTIL=20260201', { startDate: '2026-01-01', endDate: null }, '2026-01-01', '2026-12-31')).toEqual([
      '2026-01-01',
      '2026-02-01',
    ]);
  });
});
