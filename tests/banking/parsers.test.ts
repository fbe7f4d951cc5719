import { describe, expect, it } from 'vitest';
import { parseAmount, parseDate, parseIsoDateStart, parseOfxDate } from '../../server/domains/banking/parsers/values.js';
import { detectDelimiter } from '../../server/domains/banking/parsers/csv.js';
import { detectFormat } from '../../server/domains/banking/parsers/detect.js';
import { declaredEncoding, decodeText } from '../../server/domains/banking/parsers/decode.js';

/**
 * The statement readers' building blocks (CONTRACT §14), one by one: what a bank's file says and what it means.
 * The imports through HTTP are in import.test.ts and import-strict.test.ts.
 */

const bytes = (...values: number[]) => Uint8Array.from(values);
const ascii = (text: string) => Uint8Array.from(Buffer.from(text, 'latin1'));

describe('amounts: major units of the currency → exact signed minor units', () => {
  const cents = (raw: string, separator: '.' | ',' = '.', currency = 'USD') => {
    const result = parseAmount(raw, separator, currency);
    return 'cents' in result ? result.cents : result.error;
  };

  it('reads thousands separators (the other mark, space, apostrophe) and both decimal marks', () => {
    expect(cents('1,234.56')).toBe(123_456);
    expect(cents('1.234,56', ',', 'EUR')).toBe(123_456);
    expect(cents('1 234,56', ',', 'EUR')).toBe(123_456);
    expect(cents("1'234.56", '.', 'CHF')).toBe(123_456);
    expect(cents('1,234,567.8')).toBe(123_456_780);
    expect(cents('0.07')).toBe(7);
  });

  it('reads the sign in front, behind, or as parentheses; minus zero is zero', () => {
    expect(cents('-12.30')).toBe(-1_230);
    expect(cents('12.30-')).toBe(-1_230);
    expect(cents('(12.30)')).toBe(-1_230);
    expect(cents('+5')).toBe(500);
    expect(Object.is(cents('-0.00'), 0)).toBe(true);
  });

  it("follows the currency's exponent: trailing zeros are fine, a decimal it does not have is an error", () => {
    expect(cents('12.340')).toBe(1_234);
    expect(cents('12.345')).toMatch(/more decimals than USD has \(2\)/);
    expect(cents('100', '.', 'JPY')).toBe(100);
    expect(cents('100.5', '.', 'JPY')).toMatch(/more decimals than JPY has \(0\)/);
    expect(cents('1.234', '.', 'BHD')).toBe(1_234);
  });

  it('refuses what is not an amount, or too large to be one', () => {
    for (const raw of ['', 'abc', '1,23', '12.3.4', '--5', '1.234,56']) expect(cents(raw), raw).toMatch(/is not an amount/);
    expect(cents('99999999999999999')).toMatch(/too large/);
  });
});

describe('dates: calendar dates only, in the format the mapping names', () => {
  it('reads each format, with or without leading zeros', () => {
    expect(parseDate('2026-1-5', 'YYYY-MM-DD')).toBe('2026-01-05');
    expect(parseDate('05.01.2026', 'DD.MM.YYYY')).toBe('2026-01-05');
    expect(parseDate('04/05/2026', 'DD/MM/YYYY')).toBe('2026-05-04');
    expect(parseDate('04/05/2026', 'MM/DD/YYYY')).toBe('2026-04-05');
    expect(parseDate(' 29.02.2024 ', 'DD.MM.YYYY')).toBe('2024-02-29');
  });

  it('refuses dates that do not exist, another format, and years outside 1900..2999', () => {
    expect(parseDate('29.02.2023', 'DD.MM.YYYY')).toBeNull();
    expect(parseDate('31/04/2026', 'DD/MM/YYYY')).toBeNull();
    expect(parseDate('13/01/2026', 'MM/DD/YYYY')).toBeNull();
    expect(parseDate('2026-01-05', 'DD.MM.YYYY')).toBeNull();
    expect(parseDate('1899-12-31', 'YYYY-MM-DD')).toBeNull();
  });

  it('camt.053 and OFX dates: the calendar date as written, whatever the time and zone', () => {
    expect(parseIsoDateStart('2026-01-15T23:30:00-05:00')).toBe('2026-01-15');
    expect(parseIsoDateStart('2026-02-30')).toBeNull();
    expect(parseOfxDate('20260115120000.000[-5:EST]')).toBe('2026-01-15');
    expect(parseOfxDate('20260115')).toBe('2026-01-15');
    expect(parseOfxDate('2026011')).toBeNull();
  });
});

describe('which file it is', () => {
  it('the format: OFX 1.x and 2.x, camt.053 (any namespace prefix), else CSV', () => {
    expect(detectFormat('OFXHEADER:100\nDATA:OFXSGML\n')).toBe('OFX');
    expect(detectFormat('\uFEFFOFXHEADER:100\n')).toBe('OFX');
    expect(detectFormat('<?xml version="1.0"?>\n<?OFX OFXHEADER="200" VERSION="220"?>\n<OFX>')).toBe('OFX');
    expect(detectFormat('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">')).toBe('CAMT053');
    expect(detectFormat('<?xml version="1.0"?><ns2:Document><ns2:BkToCstmrStmt>')).toBe('CAMT053');
    expect(detectFormat('Date,Amount,Description\n2026-01-05,12.00,Coffee\n')).toBe('CSV');
  });

  it('the CSV delimiter: the one that splits the first line most, quoted text aside', () => {
    expect(detectDelimiter('Date;Amount;Text\n1;2;3')).toBe(';');
    expect(detectDelimiter('"Name, Inc.";"a,b";Amount\n')).toBe(';');
    expect(detectDelimiter('Date\tAmount\tText\n')).toBe('\t');
    expect(detectDelimiter('Date,Amount\n')).toBe(',');
  });

  it('the encoding: a byte-order mark, then the XML declaration or the OFX header; UTF-8 when none is declared', () => {
    expect(declaredEncoding(bytes(0xef, 0xbb, 0xbf, 0x41), 'CSV')).toBe('utf-8');
    expect(declaredEncoding(bytes(0xff, 0xfe, 0x41, 0x00), 'CSV')).toBe('utf-16');
    expect(declaredEncoding(ascii('<?xml version="1.0" encoding="ISO-8859-1"?><Document/>'), 'CAMT053')).toBe('iso-8859-1');
    expect(declaredEncoding(ascii('OFXHEADER:100\nENCODING:USASCII\nCHARSET:1252\n'), 'OFX')).toBe('windows-1252');
    expect(declaredEncoding(ascii('Date,Amount\n'), 'CSV')).toBe('utf-8');
    expect(declaredEncoding(ascii('<?xml version="1.0" encoding="EBCDIC-US"?>'), 'CAMT053')).toMatchObject({
      issue: { line: 1, message: expect.stringContaining('not supported') },
    });
  });

  it('decoding: what the encoding defines, never a replacement character; an invalid byte names its line', () => {
    // "Café Müller" in Latin-1 is not UTF-8: the first bad byte is on line 2
    const latin1 = ascii('Date,Text\n2026-01-05,Caf\u00e9 M\u00fcller\n');
    expect(decodeText(latin1, 'iso-8859-1')).toEqual({ text: 'Date,Text\n2026-01-05,Café Müller\n' });
    expect(decodeText(latin1, 'utf-8')).toMatchObject({ issue: { line: 2, message: expect.stringContaining('not valid UTF-8') } });
    // windows-1252 maps 0x80 to the euro sign, where ISO-8859-1 has a control character
    expect(decodeText(bytes(0x80, 0x35), 'windows-1252')).toEqual({ text: '€5' });
    expect(decodeText(Uint8Array.from(Buffer.from('Grüße €', 'utf8')), 'utf-8')).toEqual({ text: 'Grüße €' });
  });
});
