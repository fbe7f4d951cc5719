import { Success } from '../../../shared/contracts/common.js';
import {
  FxRateIdPath,
  FxRateList,
  FxRateObject,
  ListFxRatesQuery,
  RevalueInput,
  RevalueResult,
  UpsertFxRateInput,
} from '../../../shared/contracts/fx.js';
import { router } from '../../trpc/init.js';
import { authedProcedure, op, permitted } from '../../trpc/procedures.js';
import * as rates from './rates.service.js';
import { revalue } from './revalue.service.js';

const TAG = 'FX rates';

/** CONTRACT §17: writes need fx.manage, reading needs workspace membership. */
export const fxRouter = router({
  list: authedProcedure
    .meta(
      op('GET', '/fx-rates', 'listFxRates', TAG, 'Rates of a workspace, by currency and date', [403], {
        description: 'Optional currency and inclusive fromDate/toDate filters; ordered by currency, rateDate. Any workspace member.',
      }),
    )
    .input(ListFxRatesQuery)
    .output(FxRateList)
    .query(({ ctx, input }) => rates.listRates(ctx.actor, input)),
  upsert: permitted('fx.manage')
    .meta(
      op('POST', '/fx-rates', 'upsertFxRate', TAG, 'Create or replace the rate of a currency on a date', [403], {
        description:
          'rate = the value of one unit of currency in the workspace base currency (> 0, at most 10 decimals and 15 significant digits). ' +
          'Replaces the rate of the same currency and date. Existing entries keep their valuation (POST /fx-rates/revalue recomputes). ' +
          'The base currency itself cannot be given a rate (400).',
      }),
    )
    .input(UpsertFxRateInput)
    .output(FxRateObject)
    .mutation(({ ctx, input }) => rates.upsertRate(ctx.actor, input)),
  revalue: permitted('fx.manage')
    .meta(
      op(
        'POST',
        '/fx-rates/revalue',
        'revalueEntries',
        TAG,
        'Recompute the valuation of the entries of a date window from the rates stored now',
        [403],
        {
          description:
            'Entries dated fromDate..toDate (inclusive; VOIDED and CANCELLED entries are left out), optionally of one currency. ' +
            'Entries in closed periods are never revalued (skippedClosed). Each change records FX_REVALUED {from, to}.',
        },
      ),
    )
    .input(RevalueInput)
    .output(RevalueResult)
    .mutation(({ ctx, input }) => revalue(ctx.actor, input)),
  delete: permitted('fx.manage')
    .meta(
      op('DELETE', '/fx-rates/{id}', 'deleteFxRate', TAG, 'Delete a rate', [403, 404], {
        description: 'Entries valued with it keep their valuation until revalued.',
      }),
    )
    .input(FxRateIdPath)
    .output(Success)
    .mutation(({ ctx, input }) => rates.deleteRate(ctx.actor, input.id)),
});
