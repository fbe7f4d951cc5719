/**
 * The ISO 4217 list (CONTRACT §5): every code a currency field accepts, with its minor-unit exponent.
 * Active currencies and fund codes; not the X-codes that are no currency (XTS for testing, the three-X code for "no currency",
 * metals XAU/XAG/XPT/XPD, bond units XBA–XBD, XDR, XSU, XUA). Codes withdrawn in recent years that
 * ledgers still carry (ANG, CUC, SLL, ZWL) stay readable and writable; HRK (Croatia, euro since 2023) is gone.
 */
const BY_EXPONENT: Record<number, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2: 'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG ZWL',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

export const ISO_4217_EXPONENTS: ReadonlyMap<string, number> = new Map(
  Object.entries(BY_EXPONENT).flatMap(([exponent, codes]) => codes.split(' ').map((code) => [code, Number(exponent)] as const)),
);

export const isIsoCurrency = (code: string): boolean => ISO_4217_EXPONENTS.has(code);
