import { z } from 'zod/v4';
import { Success } from '../../shared/contracts/common.js';
import * as accounting from '../../shared/contracts/accounting.js';
import * as apiKeys from '../../shared/contracts/api-keys.js';
import * as auth from '../../shared/contracts/auth.js';
import * as banking from '../../shared/contracts/banking.js';
import * as budgets from '../../shared/contracts/budgets.js';
import * as recurring from '../../shared/contracts/recurring.js';
import * as booksRead from '../../shared/contracts/books-read.js';
import * as booksWrite from '../../shared/contracts/books-write.js';
import * as documents from '../../shared/contracts/documents.js';
import * as inbox from '../../shared/contracts/documents-inbox.js';
import * as entries from '../../shared/contracts/entries.js';
import * as fx from '../../shared/contracts/fx.js';
import * as integrations from '../../shared/contracts/integrations.js';
import * as webhooks from '../../shared/contracts/outbound-webhooks.js';
import * as parties from '../../shared/contracts/parties.js';
import * as periods from '../../shared/contracts/periods.js';
import * as reports from '../../shared/contracts/reports.js';
import * as rules from '../../shared/contracts/rules.js';
import * as sync from '../../shared/contracts/sync.js';
import * as tags from '../../shared/contracts/tags.js';
import * as users from '../../shared/contracts/users.js';
import * as workspaces from '../../shared/contracts/workspaces.js';

/**
 * The named components of openapi.json: each CONTRACT object gets the name a generated client shows
 * (`Entry`, not `ListEntries200ItemsItem`). The ids are put on the very zod schemas the routers use
 * (zod's global registry, which zod-openapi reads), so every operation that returns one `$ref`s it;
 * the contracts themselves stay as they are. Only response objects and enums are named: a request
 * body is validated with defaults and transforms, so its shape differs between input and output.
 */
const pascal = (s: string) => s.replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase());

/**
 * Each variant of a rule's condition and action unions, named by what it is (`RuleAmountRangeCondition`,
 * `RuleSetCategoryAction`), not by its place in the union (`RuleConditionAnyOf9`).
 */
function ruleVariants(): [z.ZodType, string][] {
  const conditions = rules.RuleCondition.options.map((c): [z.ZodType, string] => {
    const field = c.shape.field;
    const operator = c.shape.operator;
    const fieldName = field instanceof z.ZodLiteral ? pascal(String(field.value)) : 'Text';
    const op = operator instanceof z.ZodLiteral ? pascal(String(operator.value)) : 'Compare';
    return [c, `Rule${fieldName}${op}Condition`];
  });
  const actions = rules.RuleAction.options.map((a): [z.ZodType, string] => [a, `Rule${pascal(a.shape.type.value.toLowerCase())}Action`]);
  return [...conditions, ...actions];
}

export const COMPONENT_IDS: ReadonlyArray<readonly [z.ZodType, string]> = [
  // §5 entries
  [entries.EntryObject, 'Entry'],
  [entries.EntryDetail, 'EntryDetail'],
  [entries.EntryPage, 'EntryPage'],
  [entries.EntryItem, 'EntryItem'],
  [entries.EntryTransaction, 'EntryTransaction'],
  [entries.EntryTag, 'EntryTag'],
  [entries.EntryDocumentSummary, 'EntryDocument'],
  [entries.RelatedEntry, 'RelatedEntry'],
  [entries.NoteObject, 'Note'],
  [entries.EventObject, 'EntryEvent'],
  [entries.VerifyResult, 'EventChainVerification'],
  [entries.EntryType, 'EntryType'],
  [entries.EntryStatus, 'EntryStatus'],
  [entries.LinkType, 'LinkType'],
  [entries.ActorType, 'ActorType'],
  // §4 auth, users, workspaces, parties, tags
  [auth.AuthUser, 'AuthUser'],
  [auth.TokenResponse, 'TokenResponse'],
  [auth.Membership, 'Membership'],
  [auth.Me, 'Me'],
  [auth.PermissionName, 'Permission'],
  [users.UserObject, 'User'],
  [workspaces.WorkspaceObject, 'Workspace'],
  [workspaces.MemberObject, 'WorkspaceMember'],
  [workspaces.ProjectObject, 'Project'],
  [parties.PartyObject, 'Party'],
  [parties.PartyType, 'PartyType'],
  [tags.TagObject, 'Tag'],
  [tags.EntrySourceObject, 'EntrySource'],
  // §6 documents
  [documents.DocumentObject, 'Document'],
  [documents.DocumentType, 'DocumentType'],
  [documents.DocumentStatus, 'DocumentStatus'],
  // §21 extraction and inbox
  [inbox.ExtractionObject, 'DocumentExtraction'],
  [inbox.ExtractionSource, 'ExtractionSource'],
  [inbox.ExtractedField, 'ExtractedField'],
  [inbox.ExtractedSupplier, 'ExtractedSupplier'],
  [inbox.ExtractedCustomer, 'ExtractedCustomer'],
  [inbox.InboxDocumentObject, 'InboxDocument'],
  [inbox.InboxPage, 'InboxDocumentPage'],
  [inbox.InboxStatus, 'InboxStatus'],
  [inbox.DocumentSuggestion, 'DocumentSuggestion'],
  [inbox.SuggestionReason, 'SuggestionReason'],
  [inbox.EntryWithInboxDocument, 'EntryWithInboxDocument'],
  // §7 accounting
  [accounting.ConnectionObject, 'Connection'],
  [accounting.SyncMode, 'SyncMode'],
  [accounting.CategoryObject, 'Category'],
  [accounting.AccountType, 'AccountType'],
  [accounting.PartyMappingObject, 'PartyMapping'],
  [accounting.TaxMappingObject, 'TaxMapping'],
  [accounting.BatchUpsertResult, 'BatchUpsertResult'],
  [accounting.BackfillResult, 'BackfillResult'],
  [accounting.ProjectRoute, 'ProjectRoute'],
  // request parts a generated client builds (named so that its model is not `…ItemsItem`)
  [entries.ItemInput, 'EntryItemInput'],
  [entries.TransactionInput, 'EntryTransactionInput'],
  [accounting.PartyMappingFields, 'PartyMappingInput'],
  [banking.CsvMapping, 'CsvMappingInput'],
  [integrations.IngestItem, 'IngestItem'],
  [integrations.UncheckedIngestItem, 'UncheckedIngestItem'],
  [integrations.PartyById, 'IngestPartyById'],
  [integrations.PartyByName, 'IngestPartyByName'],
  [periods.PeriodObject, 'Period'],
  // §8 reviews
  [accounting.ReviewObject, 'Review'],
  [accounting.ReviewStatus, 'ReviewStatus'],
  [accounting.BatchReviewResult, 'BatchReviewResult'],
  [accounting.BatchReviewItemResult, 'BatchReviewItemResult'],
  [accounting.ExceptionSummary, 'ExceptionSummary'],
  [accounting.Dashboard, 'Dashboard'],
  // §9 sync
  [sync.SyncObject, 'SyncRecord'],
  [sync.SyncListRow, 'SyncRecordRow'],
  [sync.SyncStatus, 'SyncStatus'],
  [sync.PushPreview, 'PushPreview'],
  [sync.PushRequest, 'PushRequest'],
  [sync.PullResult, 'PullResult'],
  [sync.ImportResult, 'ImportResult'],
  [sync.RetryResult, 'RetryResult'],
  [sync.RetryBatchResult, 'RetryBatchResult'],
  [sync.WebhookApplied, 'ProviderWebhookApplied'],
  [sync.WebhookDuplicate, 'ProviderWebhookDuplicate'],
  // §10/§11 integrations and ingest
  [integrations.IntegrationObject, 'Integration'],
  [integrations.IntegrationWithKey, 'IntegrationWithKey'],
  [integrations.IngestResponse, 'IngestResponse'],
  [integrations.IngestItemResult, 'IngestItemResult'],
  [integrations.IngestStatus, 'IngestStatus'],
  // §11 reports
  [reports.SummaryReport, 'SummaryReport'],
  [reports.CurrencyBreakdownRow, 'CurrencyBreakdownRow'],
  [reports.TimelineRow, 'TimelineRow'],
  [reports.PartyRow, 'PartyReportRow'],
  [reports.TagRow, 'TagReportRow'],
  [reports.ProjectRow, 'ProjectReportRow'],
  [reports.FlowRow, 'FlowReportRow'],
  [reports.CalendarDay, 'CalendarDay'],
  [reports.DistributionStats, 'DistributionStats'],
  [reports.DistributionReport, 'DistributionReport'],
  // §14 banking
  [banking.BankAccountObject, 'BankAccount'],
  [banking.CsvMappingObject, 'CsvMapping'],
  // a column by header name or 0-based index: each side named, so no client names them CsvColumn0/1
  [banking.CsvColumn, 'CsvColumn'],
  [banking.CsvColumnName, 'CsvColumnName'],
  [banking.CsvColumnIndex, 'CsvColumnIndex'],
  [banking.StatementObject, 'BankStatement'],
  [banking.StatementFormat, 'StatementFormat'],
  [banking.BankLineObject, 'BankLine'],
  [banking.LineStatus, 'BankLineStatus'],
  [banking.SuggestionObject, 'MatchSuggestion'],
  [banking.MatchObject, 'ReconciliationMatch'],
  [banking.AutoMatchResult, 'AutoMatchResult'],
  [banking.EntryWithMatch, 'EntryWithMatch'],
  [banking.ReconciliationStatus, 'ReconciliationStatus'],
  [banking.StatementBalance, 'StatementBalance'],
  // §23 the books
  [booksRead.JournalTransactionObject, 'JournalTransaction'],
  [booksRead.JournalLineObject, 'JournalLine'],
  [booksRead.JournalPage, 'JournalPage'],
  [booksRead.TrialBalance, 'TrialBalance'],
  [booksRead.TrialBalanceAccount, 'TrialBalanceAccount'],
  [booksRead.TrialBalanceTotals, 'TrialBalanceTotals'],
  [booksRead.AccountLines, 'GeneralLedgerPage'],
  [booksRead.AccountLine, 'GeneralLedgerLine'],
  [booksRead.OpenItems, 'OpenItems'],
  [booksRead.OpenItem, 'OpenItem'],
  [booksRead.OpenItemBuckets, 'OpenItemBuckets'],
  [booksRead.StatementRow, 'StatementRow'],
  [booksRead.ProfitAndLoss, 'ProfitAndLoss'],
  [booksRead.BalanceSheet, 'BalanceSheet'],
  [booksWrite.RolesObject, 'LedgerRoles'],
  [booksWrite.ManualJournalLine, 'ManualJournalLine'],
  [booksWrite.VerifyResult, 'LedgerVerifyResult'],
  [booksWrite.VerifyMismatch, 'LedgerVerifyMismatch'],
  [booksWrite.PostedTransaction, 'LedgerPostedTransaction'],
  [booksWrite.PostedLine, 'LedgerPostedLine'],
  // §15 outbound webhooks
  [webhooks.WebhookEndpointObject, 'WebhookEndpoint'],
  [webhooks.WebhookEndpointWithSecret, 'WebhookEndpointWithSecret'],
  [webhooks.WebhookDeliveryObject, 'WebhookDelivery'],
  [webhooks.DeliveryPage, 'WebhookDeliveryPage'],
  [webhooks.DeliveryStatus, 'DeliveryStatus'],
  [webhooks.ReplayResult, 'ReplayResult'],
  [webhooks.WebhookEventObject, 'WebhookEvent'],
  [webhooks.WebhookEventPage, 'WebhookEventPage'],
  [webhooks.WebhookEventType, 'WebhookEventType'],
  // §16 rules
  [rules.RuleObject, 'Rule'],
  [rules.RuleCondition, 'RuleCondition'],
  [rules.RuleAction, 'RuleAction'],
  ...ruleVariants(),
  [rules.RuleTrigger, 'RuleTrigger'],
  [rules.RuleMatch, 'RuleMatch'],
  [rules.RuleChanges, 'RuleChanges'],
  [rules.PreviewRuleResult, 'RulePreview'],
  [rules.RulePreviewItem, 'RulePreviewItem'],
  [rules.RequestedDocument, 'RequestedDocument'],
  [rules.ApplyRuleResult, 'RuleApplyResult'],
  // §17 FX
  [fx.FxRateObject, 'FxRate'],
  [fx.RateSource, 'FxRateSource'],
  [fx.ImportFxRatesResult, 'FxRatesImportResult'],
  [fx.RevalueResult, 'RevalueResult'],
  // §25 recurring entries and budgets
  [recurring.RecurringEntryObject, 'RecurringEntry'],
  [recurring.RecurringTemplate, 'RecurringTemplate'],
  [recurring.RecurringEntryPage, 'RecurringEntryPage'],
  [recurring.OccurrenceObject, 'RecurringOccurrence'],
  [recurring.OccurrenceStatus, 'OccurrenceStatus'],
  [recurring.RunRecurringEntryResult, 'RecurringRunResult'],
  [budgets.BudgetObject, 'Budget'],
  [budgets.BudgetLine, 'BudgetLine'],
  [budgets.BudgetPeriod, 'BudgetPeriod'],
  [budgets.BudgetVsActual, 'BudgetVsActual'],
  [budgets.BudgetVsActualLine, 'BudgetVsActualLine'],
  [budgets.BudgetVsActualPeriod, 'BudgetVsActualPeriod'],
  [budgets.BudgetLineInput, 'BudgetLineInput'],
  // §19 API keys
  [apiKeys.ApiKeyObject, 'ApiKey'],
  [apiKeys.ApiKeyWithSecret, 'ApiKeyWithSecret'],
  // §2 DELETE and logout
  [Success, 'Success'],
];

let registered = false;

/** Puts each component id on its schema (once; keeps whatever metadata the schema already has). */
export function registerComponentIds(): void {
  if (registered) return;
  registered = true;
  for (const [schema, id] of COMPONENT_IDS) {
    z.globalRegistry.add(schema, { ...(z.globalRegistry.get(schema) ?? {}), id });
  }
}
