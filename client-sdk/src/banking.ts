import type { RestClient } from './rest.js';
import type { CsvMapping, StatementFormat, StatementObject } from './contracts.js';

export interface ImportStatementOptions {
  /** CSV, OFX or CAMT053; detected from the content when absent. */
  format?: StatementFormat;
  /** Column mapping of a CSV; saved on the account (later CSV imports may omit it). */
  csvMapping?: Partial<CsvMapping> & Pick<CsvMapping, 'dateColumn' | 'dateFormat' | 'decimalSeparator'>;
  fileName?: string;
  /** Makes a retried import safe (`Idempotency-Key`); duplicates are skipped by fingerprint anyway. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface BankingHelpers {
  /** `POST /bank-accounts/{id}/statements` (multipart, permission bank.manage) → the statement. */
  importStatement(accountId: string, file: Blob | Uint8Array | ArrayBuffer, options?: ImportStatementOptions): Promise<StatementObject>;
}

export function createBankingHelpers(rest: RestClient): BankingHelpers {
  return {
    async importStatement(accountId, file, options = {}) {
      const form = new FormData();
      const blob = file instanceof Blob ? file : new Blob([file instanceof Uint8Array ? new Uint8Array(file) : file]);
      form.append('file', blob, options.fileName ?? (file instanceof File ? file.name : 'statement'));
      if (options.format) form.append('format', options.format);
      if (options.csvMapping) form.append('csvMapping', JSON.stringify(options.csvMapping));
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
      const res = await rest.send('POST', `/bank-accounts/${encodeURIComponent(accountId)}/statements`, {
        body: form,
        headers,
        signal: options.signal,
      });
      return (await res.json()) as StatementObject;
    },
  };
}
