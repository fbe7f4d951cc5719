import express, { Router } from 'express';
import type { Config } from '../config.js';

/**
 * The demo's own webhook receiver (embedded database with demo data only): a route of the
 * service itself on loopback that answers every delivery 200, so the demo endpoint and the
 * README's webhook walkthrough show delivered events without an app of one's own, and nothing
 * retries for ever. It checks nothing and keeps nothing; a real receiver verifies the signature
 * (client-sdk `verifyWebhook`).
 */
export const DEMO_RECEIVER_PATH = '/demo/webhook-receiver';

/** The receiver's URL, or null outside the demo (a database of one's own, no demo data, or a port chosen at random). */
export function demoReceiverUrl(config: Pick<Config, 'embedded' | 'SEED_DEMO' | 'PORT' | 'HOST'>): string | null {
  if (!config.embedded || !config.SEED_DEMO || config.PORT === 0) return null;
  const wildcard = ['0.0.0.0', '::', '127.0.0.1', 'localhost'].includes(config.HOST);
  const host = wildcard ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}${DEMO_RECEIVER_PATH}`;
}

export function demoWebhookReceiver(): Router {
  const r = Router();
  r.post(DEMO_RECEIVER_PATH, express.raw({ type: () => true, limit: '1mb' }), (_req, res) => {
    res.json({ received: true });
  });
  return r;
}
