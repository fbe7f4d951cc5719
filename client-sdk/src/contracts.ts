// Contract types of the express routes (ingest, statement import) that no procedure output
// carries. The package build replaces this module's declaration with their expanded shapes.
export type { IngestItem, IngestItemResult, IngestResponse } from '../../shared/contracts/integrations.js';
export type { CsvMapping, StatementFormat, StatementObject } from '../../shared/contracts/banking.js';
