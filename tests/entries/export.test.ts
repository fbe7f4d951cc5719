import { beforeAll, describe, expect, it } from 'vitest';
import { Party, Tag } from '../../server/db/models/index.js';
import { actor, addProjectMember, buildUser, buildWorkspace, login } from '../support/factories/index.js';
import { expectErrorBody, startServer, type Api } from '../support/http.js';

let api: Api;
let token: string;
let ws: { id: number; projectIds: number[] };
const ids: Record<string, number> = {};

const HEADER = 'ID,Date,Type,Status,Amount,Currency,Description,Reference,From Party,To Party,Reconciled,Tags';

/** Minimal RFC 4180 parser: quoted fields, doubled quotes, CRLF inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else field += c;
  }
  if (field || row.length) {
    endField();
    rows.push(row);
  }
  return rows;
}

async function entry(body: Record<string, unknown>) {
  const res = await api.post(
    '/entries',
    { projectId: ws.projectIds[0], entryType: 'EXPENSE', baseCurrency: 'USD', entryDate: '2026-02-01', ...body },
    { token },
  );
  expect(res.status).toBe(200);
  return res.body.id as number;
}

beforeAll(async () => {
  api = await startServer();
  ws = await buildWorkspace({ projects: 2 });
  token = (await actor(api, { workspaceId: ws.id })).token;
  const [acme, evil] = await Party.bulkCreate(
    [
      { workspaceId: ws.id, name: 'Acme, Inc.', partyType: 'ORGANIZATION' },
      { workspaceId: ws.id, name: '=HYPERLINK("http://x")', partyType: 'ORGANIZATION' },
    ],
    { returning: true },
  );
  const [zeta, alpha] = await Tag.bulkCreate(
    [
      { workspaceId: ws.id, name: 'zeta' },
      { workspaceId: ws.id, name: 'alpha' },
    ],
    { returning: true },
  );
  ids.usd = await entry({
    amountCents: 12345,
    description: 'Office chairs',
    reference: 'INV-1',
    fromPartyId: acme.id,
    toPartyId: evil.id,
    tagIds: [zeta.id, alpha.id],
  });
  ids.jpy = await entry({
    amountCents: 12345,
    baseCurrency: 'JPY',
    entryDate: '2026-02-02',
    entryType: 'INCOME',
    description: 'Line one\r\nline "two", with comma',
    reference: '\rReturned',
  });
  ids.kwd = await entry({
    amountCents: 12345,
    baseCurrency: 'KWD',
    entryDate: '2026-02-03',
    description: '+SUM(A1:A2)',
    reference: '@cmd',
  });
  ids.small = await entry({ amountCents: 5, entryDate: '2026-02-04', description: '-minus', reference: '\tTabbed' });
  ids.otherProject = await entry({ amountCents: 100, projectId: ws.projectIds[1], entryDate: '2026-02-05' });
  ids.quoted = await entry({
    amountCents: 7,
    entryDate: '2026-02-06',
    description: "O'Brien \\ 50% off",
    toPartyId: acme.id,
    tagIds: [alpha.id],
  });
  await api.patch(`/entries/${ids.usd}/reconcile`, { isReconciled: true }, { token });
});

describe('GET /entries/export/csv', () => {
  it('streams every matching row with the exact header, attachment headers and CRLF records', async () => {
    const res = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, sortOrder: 'ASC' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="entries-${ws.id}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
    );
    expect(res.text.startsWith(`${HEADER}\r\n`)).toBe(true);
    const rows = parseCsv(res.text);
    expect(rows[0].join(',')).toBe(HEADER);
    expect(rows.slice(1).map((r) => Number(r[0]))).toEqual([ids.usd, ids.jpy, ids.kwd, ids.small, ids.otherProject, ids.quoted]);
  });

  it('formats amounts by ISO 4217 exponent, party names, tags by name, reconciled flag', async () => {
    const rows = parseCsv((await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, sortOrder: 'ASC' } })).text);
    const byId = new Map(rows.slice(1).map((r) => [Number(r[0]), r]));
    expect(byId.get(ids.usd)).toEqual([
      String(ids.usd),
      '2026-02-01',
      'EXPENSE',
      'PENDING',
      '123.45',
      'USD',
      'Office chairs',
      'INV-1',
      'Acme, Inc.',
      `'=HYPERLINK("http://x")`,
      'true',
      'alpha; zeta',
    ]);
    expect(byId.get(ids.jpy)![4]).toBe('12345');
    expect(byId.get(ids.kwd)![4]).toBe('12.345');
    expect(byId.get(ids.small)![4]).toBe('0.05');
    expect(byId.get(ids.jpy)![10]).toBe('false');
    expect(byId.get(ids.jpy)![8]).toBe('');
  });

  it('neutralises formula-like cells and quotes per RFC 4180', async () => {
    const res = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, sortOrder: 'ASC' } });
    const byId = new Map(
      parseCsv(res.text)
        .slice(1)
        .map((r) => [Number(r[0]), r]),
    );
    expect(byId.get(ids.kwd)!.slice(6, 8)).toEqual(["'+SUM(A1:A2)", "'@cmd"]);
    expect(byId.get(ids.small)!.slice(6, 8)).toEqual(["'-minus", "'\tTabbed"]);
    expect(byId.get(ids.jpy)![6]).toBe('Line one\r\nline "two", with comma');
    expect(byId.get(ids.jpy)![7]).toBe("'\rReturned"); // a leading carriage return is neutralised too
    expect(res.text).toContain(`"'\rReturned"`);
    expect(res.text).toContain('"Line one\r\nline ""two"", with comma"');
    expect(res.text).toContain(`"'=HYPERLINK(""http://x"")"`);
  });

  it('applies the list filters and sort order', async () => {
    const res = await api.get('/entries/export/csv', {
      token,
      query: { workspaceId: ws.id, projectId: ws.projectIds[0], amountMin: 12345, sortBy: 'entryDate', sortOrder: 'DESC' },
    });
    expect(
      parseCsv(res.text)
        .slice(1)
        .map((r) => Number(r[0])),
    ).toEqual([ids.kwd, ids.jpy, ids.usd]);
    const none = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, search: 'no such text' } });
    expect(none.text).toBe(`${HEADER}\r\n`);
  });

  it('every filter at once selects the one row it describes', async () => {
    const [alpha] = await Tag.findAll({ where: { workspaceId: ws.id, name: 'alpha' } });
    const [acme] = await Party.findAll({ where: { workspaceId: ws.id, name: 'Acme, Inc.' } });
    const query = {
      workspaceId: ws.id,
      projectId: ws.projectIds[0],
      tagIds: String(alpha.id),
      entryType: 'EXPENSE',
      entryStatus: 'PENDING',
      fromDate: '2026-02-01',
      toDate: '2026-02-01',
      partyId: acme.id,
      amountMin: 12345,
      amountMax: 12345,
      isReconciled: 'true',
      search: 'chairs',
    };
    const rows = parseCsv((await api.get('/entries/export/csv', { token, query })).text);
    expect(rows.slice(1).map((r) => Number(r[0]))).toEqual([ids.usd]);
    const unreconciled = await api.get('/entries/export/csv', { token, query: { ...query, isReconciled: 'false' } });
    expect(unreconciled.text).toBe(`${HEADER}\r\n`);
  });

  it('a search with quotes, backslashes and wildcards is matched as text, never as SQL', async () => {
    const exact = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, search: "O'Brien \\ 50%" } });
    expect(
      parseCsv(exact.text)
        .slice(1)
        .map((r) => Number(r[0])),
    ).toEqual([ids.quoted]);
    expect(parseCsv(exact.text)[1][6]).toBe("O'Brien \\ 50% off");
    for (const search of ["x'); DROP TABLE entries; --", "\\'; SELECT 1; --", '$1', '%_%']) {
      const res = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id, search } });
      expect(res.status).toBe(200);
      expect(res.text).toBe(`${HEADER}\r\n`);
    }
    const all = await api.get('/entries/export/csv', { token, query: { workspaceId: ws.id } });
    expect(parseCsv(all.text)).toHaveLength(7);
  });

  it('refuses without entry.export, for a foreign workspace, with bad filters and without a token', async () => {
    const noPerm = await actor(api, { workspaceId: ws.id, permissions: ['entry.create'] });
    expectErrorBody(await api.get('/entries/export/csv', { token: noPerm.token, query: { workspaceId: ws.id } }), 403, 'FORBIDDEN');
    const other = await buildWorkspace();
    expectErrorBody(await api.get('/entries/export/csv', { token, query: { workspaceId: other.id } }), 403, 'FORBIDDEN');
    const bad = await api.get('/entries/export/csv', {
      token,
      query: { workspaceId: ws.id, fromDate: '2026-03-01', toDate: '2026-01-01' },
    });
    expectErrorBody(bad, 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/entries/export/csv', { token }), 400, 'BAD_REQUEST');
    expectErrorBody(await api.get('/entries/export/csv', { query: { workspaceId: ws.id } }), 401, 'UNAUTHORIZED');
  });

  it('a project-only member exports only the rows of their project', async () => {
    const user = await buildUser();
    await addProjectMember(ws.projectIds[1], user.id);
    const t = await login(api, user);
    const rows = parseCsv((await api.get('/entries/export/csv', { token: t, query: { workspaceId: ws.id } })).text);
    expect(rows.slice(1).map((r) => Number(r[0]))).toEqual([ids.otherProject]);
    expect(rows[0].join(',')).toBe(HEADER);
  });
});
