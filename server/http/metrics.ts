import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import { AppError } from '../lib/errors.js';
import { runtime } from '../runtime.js';
import { sendError } from './errors.js';
import { httpRequestDuration, httpRequests, metricsRegistry } from '../lib/metrics.js';
import { registerBacklogMetrics } from '../db/backlog-metrics.js';
import { registerPoolMetrics } from '../db/pool-metrics.js';

/**
 * `GET /metrics` in the Prometheus text format (version 0.0.4), rendered by prom-client from
 * server/lib/metrics.ts.
 *
 * It holds no tenant data (route templates, counts, latencies, pool sizes, process figures). Public
 * like /healthz unless METRICS_TOKEN is set: then only `Authorization: Bearer <METRICS_TOKEN>` is
 * answered (401 otherwise). It is not part of the API, so it is not in openapi.json.
 */

/** The route template of a request for labels (server/http/route-templates.ts; handed in by server/app.ts). */
export type RouteTemplateOf = (req: Request, path: string) => string;

/** Times every request (labelled by route template once it has been answered). */
function measure(routeTemplateOf: RouteTemplateOf): RequestHandler {
  return (req, res, next) => {
    const stopTimer = httpRequestDuration.startTimer();
    const path = req.path;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const labels = { method: req.method, route: routeTemplateOf(req, path) };
      stopTimer(labels);
      httpRequests.inc({ ...labels, status: String(res.statusCode) });
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}

/**
 * prom-client writes a not-a-number sample as `Nan` (e.g. the event-loop lag mean of a scrape
 * with no loop iterations since the last one); the text format spells it `NaN`.
 */
const canonicalNaN = (text: string) => text.replace(/ Nan$/gm, ' NaN');

const hmacKey = randomBytes(32);
const digest = (value: string) => createHmac('sha256', hmacKey).update(value).digest();

/** Whether the request may read /metrics: no METRICS_TOKEN configured, or its bearer token (compared in constant time). */
function scrapeAllowed(req: Request): boolean {
  const token = runtime().config.METRICS_TOKEN;
  if (!token) return true;
  const match = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
  return !!match && timingSafeEqual(digest(match[1]!), digest(token));
}

/** The request-metrics middleware and `GET /metrics`; mount it first. */
export function metricsRouter(routeTemplateOf: RouteTemplateOf): Router {
  registerPoolMetrics(metricsRegistry);
  registerBacklogMetrics(metricsRegistry);
  const r = Router();
  r.use(measure(routeTemplateOf));
  r.get('/metrics', async (req, res, next) => {
    if (!scrapeAllowed(req)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return sendError(res, new AppError('UNAUTHORIZED', 'The metrics need Authorization: Bearer <METRICS_TOKEN>.'));
    }
    try {
      const text = await metricsRegistry.metrics();
      res.type(metricsRegistry.contentType).setHeader('Cache-Control', 'no-store');
      res.send(canonicalNaN(text));
    } catch (err) {
      next(err);
    }
  });
  return r;
}
