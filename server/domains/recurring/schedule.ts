import rrulePackage from 'rrule';
import { badRequest } from '../../lib/errors.js';
import { FIRST_DATE_SEARCH_MS, searchFirstDate } from './first-date.js';

const { RRule } = rrulePackage;
type Rule = InstanceType<typeof RRule>;

/*
 * The dates of a recurring entry (CONTRACT §25): an RFC 5545 RRULE computed by the `rrule` package (no recurrence
 * engine of our own), with DTSTART = startDate at 00:00 UTC and every date a UTC day. Only the parts §25 names are
 * accepted; their values are checked here (the package is lenient), so a rule that passes means what it says.
 */

const FREQS = new Set(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);
const PARTS = ['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS'];
const DAY = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;
const SIGNED = /^[+-]?\d{1,3}$/;

const list = (value: string) => value.split(',');
const within = (v: string, min: number, max: number) => {
  const n = Number(v);
  return Number.isInteger(n) && Math.abs(n) >= min && Math.abs(n) <= max;
};

/** Part → checker: the message of what is wrong with the value, or null. */
const CHECKS: Record<string, (value: string, freq: string) => string | null> = {
  FREQ: (v) => (FREQS.has(v) ? null : 'must be DAILY, WEEKLY, MONTHLY or YEARLY'),
  INTERVAL: (v) => (/^\d{1,4}$/.test(v) && within(v, 1, 1000) ? null : 'must be an integer 1..1000'),
  COUNT: (v) => (/^\d{1,5}$/.test(v) && within(v, 1, 10000) ? null : 'must be an integer 1..10000'),
  UNTIL: (v) => (/^\d{8}(T\d{6}Z)?$/.test(v) && isDate(v.slice(0, 8)) ? null : 'must be a date YYYYMMDD or a UTC time YYYYMMDDTHHMMSSZ'),
  BYDAY: (v, freq) => {
    for (const day of list(v)) {
      const m = DAY.exec(day);
      if (!m) return `has ${JSON.stringify(day)}, not a weekday (MO..SU, with an ordinal such as 1MO or -1FR)`;
      if (m[1] !== undefined) {
        if (freq !== 'MONTHLY' && freq !== 'YEARLY') return `has the ordinal ${day}, allowed only with FREQ=MONTHLY or YEARLY`;
        if (!within(m[1], 1, freq === 'MONTHLY' ? 5 : 53)) return `has ${day}, an ordinal out of range`;
      }
    }
    return null;
  },
  BYMONTHDAY: (v) => (list(v).every((d) => SIGNED.test(d) && within(d, 1, 31)) ? null : 'must be days 1..31 or -31..-1'),
  BYMONTH: (v) => (list(v).every((d) => /^\d{1,2}$/.test(d) && within(d, 1, 12)) ? null : 'must be months 1..12'),
  BYSETPOS: (v) => (list(v).every((d) => SIGNED.test(d) && within(d, 1, 366)) ? null : 'must be positions 1..366 or -366..-1'),
};

function isDate(yyyymmdd: string): boolean {
  const iso = `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso;
}

/** The parts of `rrule` (names and values upper-cased), or a 400 naming the first part §25 does not allow or whose value is wrong. */
function partsOf(rrule: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const piece of rrule.split(';')) {
    const eq = piece.indexOf('=');
    const name = (eq < 0 ? piece : piece.slice(0, eq)).trim().toUpperCase();
    if (!PARTS.includes(name)) throw badRequest(`RRULE part ${name || '(empty)'} is not supported (allowed: ${PARTS.join(', ')})`);
    if (eq < 0) throw badRequest(`RRULE part ${name} has no value`);
    if (parts.has(name)) throw badRequest(`RRULE part ${name} is given twice`);
    parts.set(
      name,
      piece
        .slice(eq + 1)
        .trim()
        .toUpperCase(),
    );
  }
  const freq = parts.get('FREQ');
  if (freq === undefined) throw badRequest('RRULE part FREQ is required');
  if (parts.has('COUNT') && parts.has('UNTIL')) throw badRequest('RRULE parts COUNT and UNTIL cannot both be given');
  for (const [name, value] of parts) {
    const wrong = CHECKS[name](value, freq);
    if (wrong) throw badRequest(`RRULE part ${name} ${wrong}`);
  }
  return parts;
}

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/**
 * Why a valid rule can never produce a date from `startDate`, or null. The `rrule` package searches such a rule
 * period by period up to the year 9999 before it answers "none" (15 s of blocked event loop for FREQ=DAILY;
 * BYSETPOS=366;BYDAY=MO), so the classes that cost that much are refused before it runs: a BYSETPOS beyond the
 * dates one period can hold, month days no month has, and days an INTERVAL of whole weeks never reaches.
 */
function neverOccurs(parts: Map<string, string>, startDate: string): string | null {
  const listed = (name: string) => (parts.has(name) ? list(parts.get(name)!) : []);
  const freq = parts.get('FREQ') as 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
  const byDay = listed('BYDAY');
  const perPeriod = { DAILY: 1, WEEKLY: Math.max(1, new Set(byDay).size), MONTHLY: 31, YEARLY: 366 }[freq];
  const beyond = listed('BYSETPOS').find((p) => Math.abs(Number(p)) > perPeriod);
  if (beyond) return `BYSETPOS=${beyond}: a FREQ=${freq} period of this rule holds at most ${perPeriod} date(s)`;
  const monthDays = listed('BYMONTHDAY').map(Number);
  const months = parts.has('BYMONTH') ? listed('BYMONTH').map(Number) : MONTH_DAYS.map((_, i) => i + 1);
  if (monthDays.length > 0 && !months.some((m) => monthDays.some((d) => Math.abs(d) <= MONTH_DAYS[m - 1]))) {
    return `BYMONTHDAY=${parts.get('BYMONTHDAY')}: no month of the rule has that day`;
  }
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const startDay = WEEKDAYS[new Date(`${startDate}T00:00:00Z`).getUTCDay()];
  if (freq === 'DAILY' && interval % 7 === 0 && byDay.length > 0 && !byDay.includes(startDay)) {
    return `BYDAY=${parts.get('BYDAY')}: every ${interval} days from a ${startDay} is always a ${startDay}`;
  }
  return null;
}

/**
 * 400 when `rrule` is not one §25 allows, or can never produce a date from `startDate`: the classes neverOccurs
 * names at once, any other contradiction when a search for the first date, off the event loop, finds none in time.
 */
export async function validateSchedule(rrule: string, startDate: string): Promise<void> {
  const never = neverOccurs(partsOf(rrule), startDate);
  if (never) throw badRequest(`RRULE never produces a date: ${never}`);
  const first = await searchFirstDate(rrule, startDate);
  // the search either ends with none (to the year 9999, seconds of CPU on a quiet machine) or is stopped
  if ('timedOut' in first) {
    throw badRequest(`RRULE never produces a date: a search from ${startDate} found none in ${FIRST_DATE_SEARCH_MS} ms`);
  }
  if (first.found === null) throw badRequest(`RRULE never produces a date: a search from ${startDate} found none`);
}

const utc = (date: string) => new Date(`${date}T00:00:00Z`);
const day = (d: Date) => d.toISOString().slice(0, 10);

/** The rule of a recurring entry (validated before: validateSchedule). */
export function ruleOf(rrule: string, startDate: string): Rule {
  return new RRule({ ...RRule.parseString(rrule.toUpperCase()), dtstart: utc(startDate), tzid: undefined });
}

export type Window = { startDate: string; endDate: string | null };

/** The occurrence dates in [from, to] (inclusive), within the entry's window, ascending; at most `limit`. */
export function datesBetween(rrule: string, w: Window, from: string, to: string, limit = 100_000): string[] {
  const last = w.endDate && w.endDate < to ? w.endDate : to;
  const first = from > w.startDate ? from : w.startDate;
  if (first > last) return [];
  const dates: string[] = [];
  ruleOf(rrule, w.startDate).between(utc(first), utc(last), true, (d) => {
    dates.push(day(d));
    return dates.length < limit;
  });
  return dates;
}

/** The first occurrence date after `after` (exclusive; null: from the start), within the window, or null. */
export function nextDate(rrule: string, w: Window, after: string | null): string | null {
  const rule = ruleOf(rrule, w.startDate);
  const next = after === null ? rule.after(utc(w.startDate), true) : rule.after(utc(after), false);
  if (!next) return null;
  const date = day(next);
  return w.endDate && date > w.endDate ? null : date;
}
