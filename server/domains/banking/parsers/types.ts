/** One bank line as a parser reads it (CONTRACT §14 "Fields of a line by format"). */
export type ParsedLine = {
  /** 1-based line of the file where the bank line starts */
  lineNo: number;
  bookingDate: string;
  valueDate: string | null;
  amountCents: number;
  description: string | null;
  counterpartyName: string | null;
  counterpartyAccount: string | null;
  reference: string | null;
  externalId: string | null;
};

/** What a file states about itself (balances null when it states none). */
export type StatementHeader = {
  currency: string | null;
  openingBalanceCents: number | null;
  closingBalanceCents: number | null;
  periodStart: string | null;
  periodEnd: string | null;
};

export type ImportIssue = { line: number; message: string };

/** Where a parser hands its lines, in batches, as it reads them (so 100,000 lines are never all held as objects). */
export type LineSink = (lines: ParsedLine[]) => Promise<void>;

export type ParseContext = {
  /** the account's currency: amounts become its minor units */
  currency: string;
  issues: IssueCollector;
  sink: LineSink;
};

export const MAX_LINES = 100_000;
export const BATCH_SIZE = 5_000;
const MAX_ISSUES = 100;

/** Collects problems with their line numbers; the import fails when there is any. */
export class IssueCollector {
  readonly list: ImportIssue[] = [];
  count = 0;
  add(line: number, message: string): void {
    this.count++;
    if (this.list.length < MAX_ISSUES) this.list.push({ line, message });
  }
  get any(): boolean {
    return this.count > 0;
  }
}

/** Batches lines towards the sink; stops forwarding once the file has a problem (nothing will be stored). */
export class LineBatcher {
  private batch: ParsedLine[] = [];
  count = 0;
  constructor(private readonly ctx: ParseContext) {}
  async push(line: ParsedLine): Promise<void> {
    this.count++;
    if (this.count === MAX_LINES + 1) this.ctx.issues.add(line.lineNo, `More than ${MAX_LINES} lines in one file`);
    if (this.ctx.issues.any) {
      this.batch = [];
      return;
    }
    this.batch.push(line);
    if (this.batch.length >= BATCH_SIZE) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.batch.length && !this.ctx.issues.any) await this.ctx.sink(this.batch);
    this.batch = [];
  }
}

const cut = (s: string | null | undefined, max: number): string | null => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, max) : null;
};
/** Text fields trimmed, whitespace collapsed, cut to their column limits. */
export const textFields = (f: {
  description?: string | null;
  counterpartyName?: string | null;
  counterpartyAccount?: string | null;
  reference?: string | null;
  externalId?: string | null;
}) => ({
  description: cut(f.description, 2000),
  counterpartyName: cut(f.counterpartyName, 255),
  counterpartyAccount: cut(f.counterpartyAccount, 64),
  reference: cut(f.reference, 255),
  externalId: cut(f.externalId, 255),
});
