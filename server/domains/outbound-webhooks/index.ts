/**
 * Outbound webhooks (CONTRACT §15): what other domains may use.
 *
 * `publish(tx, { workspaceId, type, object, data? })` / `publishMany(tx, events)` write events
 * (and their deliveries) in the caller's transaction, next to the change they report.
 */
export { outboxCtesSql, outboxRows, publish, publishMany, type PublishInput, type PublishedEventType } from './outbox.js';
export { wakeWorkersAfterCommit } from './delivery-wakeup.js';
export { startDeliveryWorker, DeliveryWorker, type WorkerOptions } from './delivery-worker.js';
export { rotateEndpointSecrets, type EndpointRotationResult } from './key-rotation.js';
export { trustOwnReceiver } from './url-guard.js';
export { webhooksRouter } from './webhooks.router.js';
export { newSecret, sealedSecretColumns } from './endpoint-secrets.js';
