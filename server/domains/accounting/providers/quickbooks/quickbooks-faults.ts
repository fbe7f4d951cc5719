import type { HttpAnswer } from '../http-client.js';
import { excerpt, ProviderError } from '../provider-error.js';
import { QbFaultAnswer } from './quickbooks-schemas.js';

/** QuickBooks fault codes the service names in `lastError`. */
export const QB_FAULTS = {
  AUTHENTICATION_FAILED: '3200',
  OBJECT_NOT_FOUND: '610',
  STALE_OBJECT: '5010',
  CLOSED_PERIOD: '6210',
  THROTTLED: '3001',
} as const;

type Fault = { type: string; code: string; message: string };

function faultOf(answer: HttpAnswer): Fault | null {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return null;
  }
  const parsed = QbFaultAnswer.safeParse(body);
  if (!parsed.success) return null;
  const fault = parsed.data.Fault ?? parsed.data.fault;
  if (!fault) return null;
  const first = (fault.Error ?? fault.error)?.[0];
  if (!first) return { type: fault.type ?? 'Fault', code: '', message: '' };
  const message = [first.Message ?? first.message, first.Detail ?? first.detail].filter(Boolean).join(': ');
  // the authentication layer writes the code inside the message: "…; errorCode=003200; …"
  const code = (first.code ?? /errorCode=0*(\d+)/.exec(message)?.[1] ?? '').replace(/^0+/, '');
  return { type: fault.type ?? 'Fault', code, message };
}

/** A failed QuickBooks answer as a ProviderError whose message names the fault. */
export function quickBooksFailure(answer: HttpAnswer): ProviderError {
  const fault = faultOf(answer);
  const detail = fault?.message ? `: ${excerpt(fault.message)}` : answer.text ? `: ${excerpt(answer.text)}` : '';
  const code = fault?.code ?? '';
  if (answer.status === 429 || code === QB_FAULTS.THROTTLED) {
    const retryAfter = answer.headers['retry-after'] ? `, Retry-After ${answer.headers['retry-after']}` : '';
    return new ProviderError(`QuickBooks throttled the request (429 ThrottleExceeded${retryAfter})${detail}`, 'HTTP', answer.status, code);
  }
  if (answer.status === 401 || code === QB_FAULTS.AUTHENTICATION_FAILED) {
    return new ProviderError(`QuickBooks refused the access token (401 AuthenticationFailed)${detail}`, 'AUTH', answer.status, code);
  }
  if (code === QB_FAULTS.STALE_OBJECT) {
    return new ProviderError(
      `QuickBooks stale object (5010): the record changed in QuickBooks since the last sync; pull to see the change${detail}`,
      'HTTP',
      answer.status,
      code,
    );
  }
  if (code === QB_FAULTS.CLOSED_PERIOD) {
    return new ProviderError(
      `QuickBooks refused: the accounting period is closed in QuickBooks (6210)${detail}`,
      'HTTP',
      answer.status,
      code,
    );
  }
  const label = fault ? `${fault.type}${code ? ` ${code}` : ''}` : `HTTP ${answer.status}`;
  return new ProviderError(`QuickBooks answered ${answer.status} (${label})${detail}`, 'HTTP', answer.status, code);
}

export const isObjectNotFound = (err: ProviderError) => err.code === QB_FAULTS.OBJECT_NOT_FOUND;
