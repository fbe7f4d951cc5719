import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, type Client } from '../../client-sdk/src/index.js';
import { buildUser, buildWorkspace, type TestUser, camt053 } from '../support/factories/index.js';
import { startServer, type Api } from '../support/http.js';

/** The SDK's client.banking.importStatement against the real server (CONTRACT §14). */

let api: Api;
let user: TestUser;
let workspaceId: number;
let projectId: number;

beforeAll(async () => {
  api = await startServer();
  user = await buildUser();
  const ws = await buildWorkspace({ members: [user.id] });
  workspaceId = ws.id;
  projectId = ws.projectIds[0]!;
});

async function withAccount(): Promise<{ client: Client; accountId: string }> {
  const client = createClient({ baseUrl: api.baseUrl });
  await client.session.login(user.email, user.password);
  const account = await client.trpc.bankAccounts.create.mutate({
    workspaceId,
    name: 'SDK account',
    currency: 'EUR',
    projectId,
    autoMatch: false,
  });
  return { client, accountId: account.id };
}

const CSV =
  [
    'Datum;Betrag;Text;Name;Ref',
    '05.01.2026;-1.234,50;"Miete; Januar";Landlord & Co;R-1',
    '07.01.2026;89,90;"Refund ""paper""";Office Depot;',
  ].join('\r\n') + '\r\n';
const MAPPING = {
  dateColumn: 'Datum',
  amountColumn: 'Betrag',
  descriptionColumn: 'Text',
  counterpartyColumn: 'Name',
  referenceColumn: 'Ref',
  dateFormat: 'DD.MM.YYYY' as const,
  decimalSeparator: ',' as const,
};

describe('client.banking.importStatement', () => {
  it('imports a CSV (bytes, with a mapping) and stores its lines; the saved mapping serves the next import', async () => {
    const { client, accountId } = await withAccount();
    const st = await client.banking.importStatement(accountId, new TextEncoder().encode(CSV), {
      format: 'CSV',
      csvMapping: MAPPING,
      fileName: 'jan.csv',
    });
    expect(st).toMatchObject({
      bankAccountId: accountId,
      format: 'CSV',
      fileName: 'jan.csv',
      lineCount: 2,
      importedCount: 2,
      duplicateCount: 0,
    });
    expect(st).toMatchObject({ periodStart: '2026-01-05', periodEnd: '2026-01-07' });

    const page = await client.trpc.bankAccounts.lines.query({ id: accountId, limit: 10 });
    expect(page.items.map((l) => [l.bookingDate, l.amountCents, l.description, l.counterpartyName, l.reference, l.statementId])).toEqual([
      ['2026-01-05', -123_450, 'Miete; Januar', 'Landlord & Co', 'R-1', st.id],
      ['2026-01-07', 8_990, 'Refund "paper"', 'Office Depot', null, st.id],
    ]);

    // no mapping given: the one saved with the first import; the same lines again are duplicates
    const again = await client.banking.importStatement(accountId, new Blob([CSV]), { format: 'CSV' });
    expect(again).toMatchObject({ lineCount: 2, importedCount: 0, duplicateCount: 2 });
    expect((await client.trpc.bankAccounts.lines.query({ id: accountId, limit: 10 })).items).toHaveLength(2);
  });

  it('imports a camt.053 (a Blob, format detected) with entities in its text', async () => {
    const { client, accountId } = await withAccount();
    const file = camt053(
      [
        { date: '2026-02-03', amount: '250.00', name: 'Acme <Ltd> & Sons', memo: 'Invoice INV-77', id: 'C1', ref: 'RF77' },
        { date: '2026-02-04', amount: '-12.30', name: 'Coffee Bar', memo: 'CARD PAYMENT', id: 'C2' },
      ],
      { opening: '0.00', closing: '237.70' },
    );
    const st = await client.banking.importStatement(accountId, new Blob([file]), { fileName: 'feb.xml' });
    expect(st).toMatchObject({
      format: 'CAMT053',
      lineCount: 2,
      importedCount: 2,
      duplicateCount: 0,
      openingBalanceCents: 0,
      closingBalanceCents: 23_770,
    });
    const { items } = await client.trpc.bankAccounts.lines.query({ id: accountId, limit: 10 });
    expect(items.map((l) => [l.externalId, l.amountCents, l.counterpartyName, l.description, l.reference])).toEqual([
      ['C1', 25_000, 'Acme <Ltd> & Sons', 'Invoice INV-77', 'RF77'],
      ['C2', -1_230, 'Coffee Bar', 'CARD PAYMENT', null],
    ]);
  });

  it('a refused file is an ApiError 400 with the line of each problem, and stores nothing', async () => {
    const { client, accountId } = await withAccount();
    const bad = CSV.replace('07.01.2026', '2026-01-07');
    const err = await client.banking
      .importStatement(accountId, new Blob([bad]), { format: 'CSV', csvMapping: MAPPING })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'BAD_REQUEST', issues: [expect.objectContaining({ line: 3 })] });
    expect((await client.trpc.bankAccounts.lines.query({ id: accountId, limit: 10 })).items).toEqual([]);
  });
});
